//! `blocks_in_image` on images the host's mke2fs made: the count the file
//! server mounts with is the one mke2fs wrote.

mod common;

use common::{Image, Mkfs};

#[test]
fn the_block_count_of_mke2fs_images() {
    for size_mib in [8u32, 32, 200] {
        let image = Image::new(
            &format!("probe-{size_mib}"),
            Mkfs {
                size_mib,
                ..Mkfs::default()
            },
        );
        let bytes = std::fs::read(&image.path).unwrap();
        let blocks = conflux_ext4::blocks_in_image(&bytes[..4096]);
        assert_eq!(blocks, Some(u64::from(size_mib) * 256), "{size_mib} MiB");
    }
}
