#!/usr/bin/env python3
"""Probe QEMU's virtio-crypto-pci (cryptodev-backend-builtin) through qtest.

No guest: this script plays the driver over QEMU's qtest protocol (port
I/O for PCI config, reads and writes of guest memory), with the same
request layouts as src/wire.rs, to find out what the device really
accepts and answers. It checks each result against `cryptography`'s AES.

    python3 drivers/virtio-crypto-dev/tools/qtest_probe.py

Prints one line per fact checked; exits non-zero on the first surprise.
Checked with Debian's QEMU 7.2.22 (which has no qtest accelerator, hence
TCG on a halting "BIOS"); takes about 20 seconds.
"""
import struct
import subprocess
import sys

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

DEV = 4  # PCI slot
BAR_ADDR = 0xC000_0000
MEM = 0x10_0000  # guest-physical scratch area (1 MiB up)
# Debian's QEMU has no qtest accelerator: run TCG on a "BIOS" that only
# halts (cli; hlt at the reset vector), so nothing but this script
# touches the device.
BIOS = "/tmp/hlt-bios.bin"


def make_bios():
    image = bytearray(b"\xf4" * 65536)
    image[-16:-12] = bytes([0xFA, 0xF4, 0xEB, 0xFD])
    with open(BIOS, "wb") as f:
        f.write(image)


class QTest:
    def __init__(self):
        self.p = subprocess.Popen(
            ["qemu-system-x86_64", "-machine", "q35", "-accel", "tcg",
             "-bios", BIOS, "-qtest", "stdio", "-display", "none", "-nodefaults", "-m", "64",
             "-object", "cryptodev-backend-builtin,id=c0",
             "-device", f"virtio-crypto-pci,cryptodev=c0,addr={DEV:02x}.0"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, bufsize=1)

    def cmd(self, line):
        self.p.stdin.write(line + "\n")
        while True:
            out = self.p.stdout.readline()
            if not out:
                raise RuntimeError("qemu exited: " + self.p.stderr.read())
            if out.startswith("OK") or out.startswith("FAIL"):
                return out.split()
            # IRQ notifications etc.

    def cfg_addr(self, reg):
        self.cmd(f"outl 0xcf8 {0x8000_0000 | (DEV << 11) | (reg & ~3):#x}")

    def cfg_read(self, reg, size):
        self.cfg_addr(reg)
        op = {1: "inb", 2: "inw", 4: "inl"}[size]
        return int(self.cmd(f"{op} {0xcfc + (reg & 3):#x}")[1], 16)

    def cfg_write(self, reg, size, val):
        self.cfg_addr(reg)
        op = {1: "outb", 2: "outw", 4: "outl"}[size]
        self.cmd(f"{op} {0xcfc + (reg & 3):#x} {val:#x}")

    def r(self, addr, size):
        op = {1: "readb", 2: "readw", 4: "readl", 8: "readq"}[size]
        return int(self.cmd(f"{op} {addr:#x}")[1], 16)

    def w(self, addr, size, val):
        op = {1: "writeb", 2: "writew", 4: "writel", 8: "writeq"}[size]
        self.cmd(f"{op} {addr:#x} {val:#x}")

    def write(self, addr, data):
        self.cmd(f"write {addr:#x} {len(data):#x} 0x{data.hex()}")

    def read(self, addr, n):
        return bytes.fromhex(self.cmd(f"read {addr:#x} {n:#x}")[1][2:])

    def alive(self):
        return self.p.poll() is None


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        sys.exit(1)


class Queue:
    """A split virtqueue of 8 descriptors at a fixed guest address."""
    SIZE = 8

    def __init__(self, q, dev, index, base):
        self.q, self.dev, self.index = q, dev, index
        self.desc, self.avail, self.used = base, base + 0x100, base + 0x200
        self.avail_idx = 0
        self.used_idx = 0
        dev.setup_queue(index, self.SIZE, self.desc, self.avail, self.used)

    def submit(self, readable, writable, buf):
        """Lays buffers out at `buf`, chains them, makes them available,
        notifies; returns (used id, used len, written buffers) or None."""
        descs = []
        addr = buf
        for data in readable:
            self.q.write(addr, data)
            descs.append((addr, len(data), 0))
            addr += (len(data) + 15) & ~15
        outs = []
        for n in writable:
            self.q.write(addr, b"\xee" * n)
            descs.append((addr, n, 2))
            outs.append((addr, n))
            addr += (n + 15) & ~15
        for i, (a, n, flags) in enumerate(descs):
            nxt = i + 1 if i + 1 < len(descs) else 0
            f = flags | (1 if i + 1 < len(descs) else 0)
            self.q.write(self.desc + 16 * i, struct.pack("<QIHH", a, n, f, nxt))
        self.q.w(self.avail + 4 + 2 * (self.avail_idx % self.SIZE), 2, 0)
        self.avail_idx += 1
        self.q.w(self.avail + 2, 2, self.avail_idx)
        self.dev.notify(self.index)
        for _ in range(50):
            if not self.q.alive():
                return None
            if self.q.r(self.used + 2, 2) != self.used_idx:
                slot = self.used + 4 + 8 * (self.used_idx % self.SIZE)
                uid, ulen = struct.unpack("<II", self.q.read(slot, 8))
                self.used_idx += 1
                return uid, ulen, [self.q.read(a, n) for a, n in outs]
        return "pending"


class Device:
    def __init__(self, q):
        self.q = q
        vendor, device = q.cfg_read(0, 2), q.cfg_read(2, 2)
        check(vendor == 0x1AF4 and device == 0x1040 + 20,
              f"PCI id {vendor:04x}:{device:04x} is modern virtio crypto (0x1054)")
        q.cfg_write(0x20, 4, BAR_ADDR & 0xFFFF_FFFF)  # BAR4, 64-bit
        q.cfg_write(0x24, 4, 0)
        q.cfg_write(0x04, 2, 0x6)  # memory space + bus master
        self.caps = {}
        ptr = q.cfg_read(0x34, 1)
        while ptr:
            cap_id, nxt = q.cfg_read(ptr, 1), q.cfg_read(ptr + 1, 1)
            if cap_id == 0x09 and q.cfg_read(ptr + 3, 1) in (1, 2, 3, 4):
                cfg_type = q.cfg_read(ptr + 3, 1)
                bar = q.cfg_read(ptr + 4, 1)
                off = q.cfg_read(ptr + 8, 4)
                mult = q.cfg_read(ptr + 16, 4) if cfg_type == 2 else 0
                check(bar == 4, f"cap type {cfg_type} in BAR4 at {off:#x}")
                self.caps[cfg_type] = (BAR_ADDR + off, mult)
            ptr = nxt
        self.common = self.caps[1][0]
        self.devcfg = self.caps[4][0]

    def status(self):
        return self.q.r(self.common + 0x14, 1)

    def set_status(self, s):
        self.q.w(self.common + 0x14, 1, s)

    def setup_queue(self, index, size, desc, avail, used):
        c = self.common
        self.q.w(c + 0x16, 2, index)
        max_size = self.q.r(c + 0x18, 2)
        print(f"     queue {index}: max size {max_size}")
        self.q.w(c + 0x18, 2, size)
        self.q.w(c + 0x20, 8, desc)
        self.q.w(c + 0x28, 8, avail)
        self.q.w(c + 0x30, 8, used)
        self.q.w(c + 0x1C, 2, 1)

    def notify(self, index):
        c = self.common
        self.q.w(c + 0x16, 2, index)
        off = self.q.r(c + 0x1E, 2)
        base, mult = self.caps[2]
        self.q.w(base + off * mult, 2, index)


# ---- wire formats (as src/wire.rs) ----
CREATE, DESTROY, ENC, DEC = 0x02, 0x03, 0x00, 0x01
CBC, CTR = 3, 4


def create_req(algo, keylen, op):
    return (struct.pack("<IIII", CREATE, algo, 0, 0)
            + struct.pack("<IIII", algo, keylen, op, 0) + bytes(32)
            + struct.pack("<II", 1, 0))


def destroy_req(sid):
    return struct.pack("<IIII", DESTROY, 0, 0, 0) + struct.pack("<Q", sid) + bytes(48)


def data_req(opcode, algo, sid, src_len, dst_len, iv_len=16):
    return (struct.pack("<IIQII", opcode, algo, sid, 0, 0)
            + struct.pack("<IIII", iv_len, src_len, dst_len, 0) + bytes(24)
            + struct.pack("<II", 1, 0))


def soft(algo, encrypt, key, iv, data):
    mode = modes.CBC(iv) if algo == CBC else modes.CTR(iv)
    c = Cipher(algorithms.AES(key), mode)
    op = c.encryptor() if encrypt else c.decryptor()
    return op.update(data) + op.finalize()


def main():
    make_bios()
    q = QTest()
    dev = Device(q)
    dev.set_status(0)
    dev.set_status(1 | 2)
    q.w(dev.common + 0x00, 4, 1)
    feat_hi = q.r(dev.common + 0x04, 4)
    q.w(dev.common + 0x00, 4, 0)
    feat_lo = q.r(dev.common + 0x04, 4)
    print(f"     device features {feat_hi:08x}{feat_lo:08x}")
    q.w(dev.common + 0x08, 4, 1)
    q.w(dev.common + 0x0C, 4, 1)  # VERSION_1 only
    q.w(dev.common + 0x08, 4, 0)
    q.w(dev.common + 0x0C, 4, 0)
    dev.set_status(1 | 2 | 8)
    check(dev.status() & 8, "FEATURES_OK kept with VERSION_1 only")
    cfg = struct.unpack("<12IQ", q.read(dev.devcfg, 56))
    print(f"     config {cfg}")
    check(cfg[0] == 1, "status = VIRTIO_CRYPTO_S_HW_READY")
    check(cfg[1] == 1, "max_dataqueues = 1")
    check(cfg[3] == 1 << CBC, "cipher_algo_l advertises only AES-CBC")
    check(cfg[9] == 64, "max_cipher_key_len = 64")
    data_q = Queue(q, dev, 0, MEM)
    ctrl_q = Queue(q, dev, cfg[1], MEM + 0x1000)
    dev.set_status(1 | 2 | 8 | 4)

    buf = MEM + 0x10000
    key = bytes(range(16))
    iv = bytes([7] * 16)
    sessions = {}
    for algo in (CBC, CTR):
        for op in (1, 2):
            r = ctrl_q.submit([create_req(algo, 16, op), key], [16], buf)
            sid, status = struct.unpack("<QI", r[2][0][:12])
            check(r[1] == 16 and status == 0,
                  f"create algo {algo} op {op}: used {r[1]}, status {status}, id {sid}")
            sessions[(algo, op)] = sid

    for algo, n in ((CBC, 64), (CTR, 64), (CTR, 48)):
        plain = bytes(range(n))
        enc = sessions[(algo, 1)]
        r = data_q.submit([data_req(ENC, algo, enc, n, n), iv, plain], [n, 1], buf)
        ct, status = r[2][0], r[2][1][0]
        check(status == 0 and r[1] == n + 1 and ct == soft(algo, True, key, iv, plain),
              f"encrypt algo {algo} len {n}: used {r[1]} = len+1, status {status}, matches software AES")
        dec = sessions[(algo, 2)]
        r = data_q.submit([data_req(DEC, algo, dec, n, n), iv, ct], [n, 1], buf)
        check(r[2][1][0] == 0 and r[2][0] == plain, f"decrypt algo {algo} len {n} round-trips")

    # the session's direction wins over the opcode
    r = data_q.submit([data_req(DEC, CBC, sessions[(CBC, 1)], 16, 16), iv, bytes(16)], [16, 1], buf)
    check(r[2][0] == soft(CBC, True, key, iv, bytes(16)),
          "DECRYPT opcode on an encrypt session encrypts (direction is the session's)")

    for algo in (CBC, CTR):
        r = data_q.submit([data_req(ENC, algo, sessions[(algo, 1)], 20, 20), iv, bytes(20)], [20, 1], buf)
        check(r[2][1][0] == 1 and r[1] == 21,
              f"algo {algo} on 20 bytes (not whole blocks): status {r[2][1][0]} (ERR), used {r[1]}")

    r = data_q.submit([data_req(ENC, CBC, 200, 16, 16), iv, bytes(16)], [16, 1], buf)
    check(r[2][1][0] == 4, f"unknown session on the data queue: status {r[2][1][0]} (INVSESS)")

    r = ctrl_q.submit([create_req(CBC, 15, 1), bytes(15)], [16], buf)
    status = struct.unpack("<QI", r[2][0][:12])[1]
    check(r[1] == 16 and status == 1, f"15-byte key: status {status} (ERR)")

    for (algo, op), sid in sessions.items():
        r = ctrl_q.submit([destroy_req(sid)], [1], buf)
        check(r[1] == 1 and r[2][0][0] == 0, f"destroy {sid}: used {r[1]}, status {r[2][0][0]}")

    r = data_q.submit([data_req(ENC, CBC, 0, 16, 32), iv, bytes(16)], [32, 1], buf)
    check(r == "pending" and dev.status() & 0x40,
          "src_len != dst_len: no answer, DEVICE_NEEDS_RESET set")

    dev.set_status(0)
    q.p.kill()
    # a fresh device for the destroy-of-an-unknown-session case (QEMU 7.2
    # answers ERR; later QEMUs' builtin backend asserts instead)
    q = QTest()
    dev = Device(q)
    dev.set_status(1 | 2)
    q.w(dev.common + 0x08, 4, 1)
    q.w(dev.common + 0x0C, 4, 1)
    dev.set_status(1 | 2 | 8)
    Queue(q, dev, 0, MEM)
    ctrl_q = Queue(q, dev, 1, MEM + 0x1000)
    dev.set_status(1 | 2 | 8 | 4)
    r = ctrl_q.submit([destroy_req(5)], [1], buf)
    alive = q.alive()
    q.p.kill()
    check(r is not None and r != "pending" and r[1] == 1 and r[2][0][0] == 1 and alive,
          f"destroy of an unknown session: answered {r!r}, QEMU alive: {alive}")
    print("all checks passed")


if __name__ == "__main__":
    main()
