//! `VirtIOCrypto` itself against QEMU's virtio-crypto-pci with
//! cryptodev-backend-builtin, on the host, with no guest.
//!
//! QEMU runs with its guest RAM in a shared file and a "BIOS" that only
//! halts; this test maps that file, so virtqueues and buffers it places
//! there are guest memory the device reads and writes. The transport
//! reaches the device's registers through QEMU's qtest protocol (PCI
//! config by port I/O, the BAR by MMIO reads and writes). Every result is
//! checked against software AES (`soft`).
//!
//! Skipped (passes, saying so) when `qemu-system-x86_64` is not there.

use std::cell::RefCell;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicPtr, AtomicU64, Ordering};

use conflux_virtio_crypto::{soft, Algorithm, Direction, Error, VirtIOCrypto};
use virtio_drivers::transport::{DeviceStatus, DeviceType, InterruptStatus, Transport};
use virtio_drivers::{BufferDirection, Hal, PhysAddr, PAGE_SIZE};
use zerocopy::{FromBytes, Immutable, IntoBytes};

const RAM: usize = 64 << 20;
const DEV: u32 = 4;
const BAR: u64 = 0xC000_0000;
/// Guest-physical memory handed out as DMA memory (never freed: a test).
const DMA_START: u64 = 16 << 20;

static RAM_BASE: AtomicPtr<u8> = AtomicPtr::new(std::ptr::null_mut());
static NEXT: AtomicU64 = AtomicU64::new(DMA_START);

/// DMA from the shared guest RAM: guest-physical = offset in the file.
struct GuestRamHal;

fn alloc(len: usize) -> (PhysAddr, NonNull<u8>) {
    let len = (len as u64).div_ceil(PAGE_SIZE as u64) * PAGE_SIZE as u64;
    let paddr = NEXT.fetch_add(len, Ordering::SeqCst);
    assert!(paddr + len <= RAM as u64, "test DMA area exhausted");
    // Safety: paddr + len is inside the RAM mapping (checked above).
    let vaddr = unsafe { RAM_BASE.load(Ordering::SeqCst).add(paddr as usize) };
    (paddr, NonNull::new(vaddr).unwrap())
}

// Safety: allocations are disjoint ranges of the shared guest RAM, whose
// guest-physical addresses are their offsets there.
unsafe impl Hal for GuestRamHal {
    fn dma_alloc(pages: usize, _direction: BufferDirection) -> (PhysAddr, NonNull<u8>) {
        let (paddr, vaddr) = alloc(pages * PAGE_SIZE);
        // Safety: fresh, exclusively ours, `pages` pages long.
        unsafe { vaddr.as_ptr().write_bytes(0, pages * PAGE_SIZE) };
        (paddr, vaddr)
    }

    unsafe fn dma_dealloc(_paddr: PhysAddr, _vaddr: NonNull<u8>, _pages: usize) -> i32 {
        0
    }

    unsafe fn mmio_phys_to_virt(_paddr: PhysAddr, _size: usize) -> NonNull<u8> {
        unreachable!("the qtest transport does its own MMIO")
    }

    unsafe fn share(buffer: NonNull<[u8]>, _direction: BufferDirection) -> PhysAddr {
        let (paddr, vaddr) = alloc(buffer.len().max(1));
        // Safety: the caller's buffer is valid for reads; the bounce is ours.
        unsafe {
            vaddr
                .as_ptr()
                .copy_from_nonoverlapping(buffer.as_ptr().cast(), buffer.len())
        };
        paddr
    }

    unsafe fn unshare(paddr: PhysAddr, buffer: NonNull<[u8]>, direction: BufferDirection) {
        if direction != BufferDirection::DriverToDevice {
            // Safety: the bounce `share` made for this buffer, and the
            // caller's buffer is valid for writes.
            unsafe {
                let bounce = RAM_BASE.load(Ordering::SeqCst).add(paddr as usize);
                buffer
                    .as_ptr()
                    .cast::<u8>()
                    .copy_from_nonoverlapping(bounce, buffer.len());
            }
        }
    }
}

struct QTest {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl QTest {
    fn cmd(&mut self, line: &str) -> u64 {
        writeln!(self.stdin, "{line}").unwrap();
        loop {
            let mut out = String::new();
            assert!(self.stdout.read_line(&mut out).unwrap() > 0, "qemu exited");
            if let Some(rest) = out.strip_prefix("OK") {
                let v = rest.trim().trim_start_matches("0x");
                return u64::from_str_radix(v, 16).unwrap_or(0);
            }
            assert!(!out.starts_with("FAIL"), "qtest: {line} -> {out}");
        }
    }
    fn cfg(&mut self, reg: u32) {
        self.cmd(&format!(
            "outl 0xcf8 {:#x}",
            0x8000_0000 | (DEV << 11) | (reg & !3)
        ));
    }
    fn cfg_read(&mut self, reg: u32, size: u32) -> u64 {
        self.cfg(reg);
        let op = ["", "inb", "inw", "", "inl"][size as usize];
        self.cmd(&format!("{op} {:#x}", 0xcfc + (reg & 3)))
    }
    fn cfg_write(&mut self, reg: u32, size: u32, v: u64) {
        self.cfg(reg);
        let op = ["", "outb", "outw", "", "outl"][size as usize];
        self.cmd(&format!("{op} {:#x} {v:#x}", 0xcfc + (reg & 3)));
    }
    fn r(&mut self, addr: u64, size: u32) -> u64 {
        let op = ["", "readb", "readw", "", "readl", "", "", "", "readq"][size as usize];
        self.cmd(&format!("{op} {addr:#x}"))
    }
    fn w(&mut self, addr: u64, size: u32, v: u64) {
        let op = ["", "writeb", "writew", "", "writel", "", "", "", "writeq"][size as usize];
        self.cmd(&format!("{op} {addr:#x} {v:#x}"));
    }
}

impl Drop for QTest {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The modern virtio PCI transport (virtio 1.2 §4.1.4) over qtest.
struct QTestTransport {
    qt: RefCell<QTest>,
    common: u64,
    notify: u64,
    notify_mult: u64,
    isr: u64,
    device: u64,
}

impl QTestTransport {
    fn new(mut qt: QTest) -> Self {
        qt.cfg_write(0x20, 4, BAR & 0xffff_ffff);
        qt.cfg_write(0x24, 4, BAR >> 32);
        qt.cfg_write(0x04, 2, 0x6);
        let (mut common, mut notify, mut notify_mult, mut isr, mut device) = (0, 0, 0, 0, 0);
        let mut ptr = qt.cfg_read(0x34, 1) as u32;
        while ptr != 0 {
            if qt.cfg_read(ptr, 1) == 0x09 {
                let off = BAR + qt.cfg_read(ptr + 8, 4);
                match qt.cfg_read(ptr + 3, 1) {
                    1 => common = off,
                    2 => {
                        notify = off;
                        notify_mult = qt.cfg_read(ptr + 16, 4);
                    }
                    3 => isr = off,
                    4 => device = off,
                    _ => {}
                }
            }
            ptr = qt.cfg_read(ptr + 1, 1) as u32;
        }
        QTestTransport {
            qt: RefCell::new(qt),
            common,
            notify,
            notify_mult,
            isr,
            device,
        }
    }
    fn r(&self, off: u64, size: u32) -> u64 {
        self.qt.borrow_mut().r(self.common + off, size)
    }
    fn w(&self, off: u64, size: u32, v: u64) {
        self.qt.borrow_mut().w(self.common + off, size, v)
    }
}

impl Transport for QTestTransport {
    fn device_type(&self) -> DeviceType {
        let id = self.qt.borrow_mut().cfg_read(2, 2);
        DeviceType::try_from((id - 0x1040) as u32).unwrap()
    }
    fn read_device_features(&mut self) -> u64 {
        self.w(0x00, 4, 0);
        let lo = self.r(0x04, 4);
        self.w(0x00, 4, 1);
        lo | self.r(0x04, 4) << 32
    }
    fn write_driver_features(&mut self, f: u64) {
        self.w(0x08, 4, 0);
        self.w(0x0c, 4, f & 0xffff_ffff);
        self.w(0x08, 4, 1);
        self.w(0x0c, 4, f >> 32);
    }
    fn max_queue_size(&mut self, queue: u16) -> u32 {
        self.w(0x16, 2, queue.into());
        self.r(0x18, 2) as u32
    }
    fn notify(&mut self, queue: u16) {
        self.w(0x16, 2, queue.into());
        let off = self.r(0x1e, 2);
        let addr = self.notify + off * self.notify_mult;
        self.qt.borrow_mut().w(addr, 2, queue.into());
    }
    fn get_status(&self) -> DeviceStatus {
        DeviceStatus::from_bits_truncate(self.r(0x14, 1) as u32)
    }
    fn set_status(&mut self, status: DeviceStatus) {
        self.w(0x14, 1, status.bits().into());
    }
    fn set_guest_page_size(&mut self, _size: u32) {}
    fn requires_legacy_layout(&self) -> bool {
        false
    }
    fn queue_set(&mut self, queue: u16, size: u32, desc: PhysAddr, drv: PhysAddr, dev: PhysAddr) {
        self.w(0x16, 2, queue.into());
        self.w(0x18, 2, size.into());
        self.w(0x20, 8, desc);
        self.w(0x28, 8, drv);
        self.w(0x30, 8, dev);
        self.w(0x1c, 2, 1);
    }
    fn queue_unset(&mut self, _queue: u16) {}
    fn queue_used(&mut self, queue: u16) -> bool {
        self.w(0x16, 2, queue.into());
        self.r(0x1c, 2) == 1
    }
    fn ack_interrupt(&mut self) -> InterruptStatus {
        let isr = self.qt.borrow_mut().r(self.isr, 1);
        InterruptStatus::from_bits_retain(isr as u32)
    }
    fn read_config_generation(&self) -> u32 {
        self.r(0x15, 1) as u32
    }
    fn read_config_space<T: FromBytes + IntoBytes>(
        &self,
        offset: usize,
    ) -> Result<T, virtio_drivers::Error> {
        let mut bytes = Vec::new();
        for i in (0..size_of::<T>()).step_by(4) {
            let v = self.qt.borrow_mut().r(self.device + (offset + i) as u64, 4);
            bytes.extend_from_slice(&(v as u32).to_le_bytes());
        }
        bytes.truncate(size_of::<T>());
        T::read_from_bytes(&bytes).map_err(|_| virtio_drivers::Error::InvalidParam)
    }
    fn write_config_space<T: IntoBytes + Immutable>(
        &mut self,
        _offset: usize,
        _value: T,
    ) -> Result<(), virtio_drivers::Error> {
        Err(virtio_drivers::Error::Unsupported)
    }
}

/// Starts QEMU and maps its RAM; `None` if QEMU is not installed.
fn start_qemu() -> Option<QTest> {
    let bios = std::env::temp_dir().join(format!("conflux-hlt-bios-{}", std::process::id()));
    let mut image = vec![0xf4u8; 65536];
    image[65536 - 16..65536 - 12].copy_from_slice(&[0xfa, 0xf4, 0xeb, 0xfd]); // cli; hlt; jmp
    std::fs::write(&bios, image).unwrap();
    let ram = format!("/dev/shm/conflux-crypto-ram-{}", std::process::id());
    let spawned = Command::new("qemu-system-x86_64")
        .args([
            "-machine",
            "q35,memory-backend=ram",
            "-accel",
            "tcg",
            "-m",
            "64M",
        ])
        .args([
            "-object",
            &format!("memory-backend-file,id=ram,size=64M,mem-path={ram},share=on"),
        ])
        .args([
            "-bios",
            bios.to_str().unwrap(),
            "-qtest",
            "stdio",
            "-qtest-log",
            "/dev/null",
        ])
        .args(["-display", "none", "-nodefaults"])
        .args(["-object", "cryptodev-backend-builtin,id=c0"])
        .args([
            "-device",
            &format!("virtio-crypto-pci,cryptodev=c0,addr={DEV:02x}.0"),
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn();
    let mut child = match spawned {
        Ok(c) => c,
        Err(e) => {
            eprintln!("skipped: qemu-system-x86_64 not started ({e})");
            return None;
        }
    };
    let mut qt = QTest {
        stdin: child.stdin.take().unwrap(),
        stdout: BufReader::new(child.stdout.take().unwrap()),
        child,
    };
    qt.cfg_read(0, 2); // QEMU is up, RAM file created
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&ram)
        .unwrap();
    std::fs::remove_file(&ram).unwrap();
    let _ = std::fs::remove_file(&bios);
    use std::os::fd::AsRawFd;
    // Safety: a fresh shared mapping of the whole file; never unmapped
    // while the test runs.
    let base = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            RAM,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED,
            file.as_raw_fd(),
            0,
        )
    };
    assert_ne!(base, libc::MAP_FAILED);
    RAM_BASE.store(base.cast(), Ordering::SeqCst);
    Some(qt)
}

#[test]
fn against_qemu_builtin_backend() {
    let Some(qt) = start_qemu() else { return };
    let transport = QTestTransport::new(qt);
    let mut dev = VirtIOCrypto::<GuestRamHal, _>::new(transport).unwrap();
    let config = *dev.config();
    eprintln!("config: {config:?}");
    assert_eq!(config.max_dataqueues, 1);
    assert!(config.advertises(Algorithm::Cbc));
    assert!(!config.advertises(Algorithm::Ctr)); // yet CTR works:

    let iv = [0x5au8; 16];
    for (algo, key_len, len) in [
        (Algorithm::Cbc, 16, 64),
        (Algorithm::Cbc, 32, 4096),
        (Algorithm::Ctr, 16, 48),
        (Algorithm::Ctr, 24, 1024),
    ] {
        let key: Vec<u8> = (0..key_len as u8).map(|b| b.wrapping_mul(7)).collect();
        let enc = dev.create_session(algo, &key, Direction::Encrypt).unwrap();
        let dec = dev.create_session(algo, &key, Direction::Decrypt).unwrap();
        let plain: Vec<u8> = (0..len).map(|i| (i * 31 % 251) as u8).collect();
        let mut ct = vec![0u8; len];
        dev.encrypt(enc, &iv, &plain, &mut ct).unwrap();
        let mut want = plain.clone();
        soft::apply(algo, Direction::Encrypt, &key, &iv, &mut want).unwrap();
        assert_eq!(ct, want, "{algo:?} key {key_len} len {len}");
        let mut back = vec![0u8; len];
        dev.decrypt(dec, &iv, &ct, &mut back).unwrap();
        assert_eq!(back, plain);
        assert_eq!(
            dev.decrypt(enc, &iv, &ct, &mut back),
            Err(Error::WrongDirection)
        );
        dev.destroy_session(enc).unwrap();
        dev.destroy_session(dec).unwrap();
        assert_eq!(dev.destroy_session(enc), Err(Error::UnknownSession));
        eprintln!(
            "{algo:?} AES-{} on {len} bytes: device = software",
            key_len * 8
        );
    }
    let enc = dev
        .create_session(Algorithm::Ctr, &[1; 16], Direction::Encrypt)
        .unwrap();
    let mut out = [0u8; 20];
    assert_eq!(
        dev.encrypt(enc, &iv, &[0; 20], &mut out),
        Err(Error::NotBlockMultiple { len: 20 })
    );
    assert_eq!(
        dev.create_session(Algorithm::Cbc, &[1; 15], Direction::Encrypt),
        Err(Error::BadKeyLength { len: 15 })
    );
    // still healthy after the refusals
    let mut out = [0u8; 16];
    dev.encrypt(enc, &iv, &[0; 16], &mut out).unwrap();
    dev.destroy_session(enc).unwrap();
}
