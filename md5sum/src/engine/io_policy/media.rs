//! Which disks spin, by what sysfs says of them. Many virtual disks
//! (virtio-blk, Xen, Hyper-V, VMware, QEMU's emulated disks) say
//! `queue/rotational = 1` whatever is behind them, so the flag alone is not
//! trusted: a disk spins when the flag says so and sysfs does not show it
//! to be a virtual disk or a device stacked on ones that do not spin.

// sysfs is only looked at on Unix (where `st_dev` exists).
#![cfg_attr(not(unix), allow(dead_code))]

use md5x::files::{open_waiting, with_descriptor, Control};
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

/// What sysfs says about the disk under a file system.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Media {
    /// Not a block device in sysfs: tmpfs, network and other virtual file
    /// systems.
    Unlisted,
    /// `queue/rotational` is 0.
    Solid,
    /// `queue/rotational` is 1, but the device is a hypervisor's virtual
    /// disk, a software device (loop, nbd), or stacked (device mapper, md)
    /// on devices that do not spin.
    NotSpinning,
    /// A rotational disk: its files are read one at a time, in order.
    Spinning,
}

/// Splits a `st_dev` into major and minor numbers, as glibc encodes them.
pub fn major_minor(dev: u64) -> (u64, u64) {
    let major = ((dev >> 32) & 0xffff_f000) | ((dev >> 8) & 0x0000_0fff);
    let minor = ((dev >> 12) & 0xffff_ff00) | (dev & 0x0000_00ff);
    (major, minor)
}

/// A sysfs attribute's text, trimmed.
fn attr(path: &Path) -> Option<String> {
    let mut f = open_waiting(|| File::open(path), || false, &Control::new()).ok()?;
    let mut s = String::new();
    f.read_to_string(&mut s).ok()?;
    Some(s.trim().to_string())
}

/// The disk's directory in sysfs for device `dev`: `dev/block/MAJ:MIN`
/// links to it, or, for a partition (which has no queue of its own), to
/// the partition's directory inside its disk's.
fn disk_dir(sysfs: &Path, dev: u64) -> Option<PathBuf> {
    let (major, minor) = major_minor(dev);
    let node = std::fs::canonicalize(sysfs.join(format!("dev/block/{major}:{minor}"))).ok()?;
    if node.join("queue").is_dir() {
        return Some(node);
    }
    let parent = node.parent()?;
    parent.join("queue").is_dir().then(|| parent.to_path_buf())
}

/// Whether a disk's sysfs directory shows it to be a hypervisor's virtual
/// disk: by its driver or bus (virtio, Xen, Hyper-V's VMBus), or by the
/// vendor and model that emulated SCSI and ATA disks report.
fn virtual_disk(disk: &Path) -> bool {
    let name = disk.file_name().map(|n| n.to_string_lossy().into_owned());
    if name.is_some_and(|n| n.starts_with("vd") || n.starts_with("xvd")) {
        return true;
    }
    let device = disk.join("device");
    let driver = std::fs::read_link(device.join("driver")).ok();
    let driver = driver.as_deref().and_then(Path::file_name);
    if driver.is_some_and(|d| {
        ["virtio_blk", "vbd", "xen_blkfront"]
            .iter()
            .any(|v| d == *v)
    }) {
        return true;
    }
    let modalias = attr(&device.join("modalias")).unwrap_or_default();
    if ["virtio:", "xen:", "vmbus:"]
        .iter()
        .any(|p| modalias.starts_with(p))
    {
        return true;
    }
    let vendor = attr(&device.join("vendor")).unwrap_or_default();
    let model = attr(&device.join("model")).unwrap_or_default();
    const VENDORS: [&str; 6] = ["QEMU", "VMware", "Msft", "Xen", "Google", "Red Hat"];
    const MODELS: [&str; 5] = ["QEMU", "VBOX", "Virtual", "VMware", "PersistentDisk"];
    VENDORS.iter().any(|v| vendor.starts_with(v)) || MODELS.iter().any(|m| model.contains(m))
}

/// What kind of device `dev` is, by `SYSFS/dev/block/MAJ:MIN`.
pub fn media(sysfs: &Path, dev: u64) -> Media {
    let Some(disk) = disk_dir(sysfs, dev) else {
        return Media::Unlisted;
    };
    media_of_disk(&disk, 0)
}

/// [`media`] of a disk's sysfs directory, `depth` devices down a stack.
fn media_of_disk(disk: &Path, depth: usize) -> Media {
    match attr(&disk.join("queue/rotational")).as_deref() {
        Some("1") => {}
        Some(_) => return Media::Solid,
        None => return Media::Unlisted,
    }
    // A stacked device (device mapper, md) spins when a device under it
    // does.
    let slaves: Vec<PathBuf> = with_descriptor(
        || {
            std::fs::read_dir(disk.join("slaves"))?
                .map(|e| e.map(|e| e.path()))
                .collect()
        },
        &Control::new(),
    )
    .unwrap_or_default();
    if !slaves.is_empty() && depth < 8 {
        let spins = slaves.iter().any(|s| {
            let under = std::fs::canonicalize(s).ok();
            let under = under.as_deref().and_then(|u| {
                // A partition under a stacked device: its disk's queue.
                if u.join("queue").is_dir() {
                    Some(u.to_path_buf())
                } else {
                    u.parent().map(Path::to_path_buf)
                }
            });
            under.is_some_and(|u| media_of_disk(&u, depth + 1) == Media::Spinning)
        });
        return if spins {
            Media::Spinning
        } else {
            Media::NotSpinning
        };
    }
    // No hardware device behind it (loop, nbd) or a virtual one.
    if !disk.join("device").exists() || virtual_disk(disk) {
        return Media::NotSpinning;
    }
    Media::Spinning
}

/// Whether the file `meta` describes is on a spinning disk; [`media`],
/// looked up once per device.
pub fn on_spinning_disk(sysfs: &Path, meta: &std::fs::Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        use std::sync::{Mutex, MutexGuard};
        // The list stays whole across every panic point.
        fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
            m.lock().unwrap_or_else(|e| e.into_inner())
        }
        static KNOWN: Mutex<Vec<(PathBuf, u64, Media)>> = Mutex::new(Vec::new());
        let dev = meta.dev();
        if let Some(&(_, _, m)) = lock(&KNOWN)
            .iter()
            .find(|(root, d, _)| *d == dev && root == sysfs)
        {
            return m == Media::Spinning;
        }
        let m = media(sysfs, dev);
        lock(&KNOWN).push((sysfs.to_path_buf(), dev, m));
        m == Media::Spinning
    }
    #[cfg(not(unix))]
    {
        let _ = (sysfs, meta);
        false
    }
}

#[cfg(all(test, unix))]
pub mod tests {
    use super::*;
    use crate::engine::test_dir::temp_dir;

    /// `makedev`, as glibc encodes it.
    pub fn makedev(major: u64, minor: u64) -> u64 {
        (major & 0xfff) << 8 | (major & !0xfff) << 32 | (minor & 0xff) | (minor & !0xff) << 12
    }

    #[test]
    fn device_numbers() {
        assert_eq!(major_minor(0x801), (8, 1));
        assert_eq!(major_minor(makedev(259, 65539)), (259, 65539));
        assert_eq!(major_minor(makedev(4095, 255)), (4095, 255));
    }

    /// What the disk that [`fake_sysfs`] puts under `extra` is.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Disk {
        /// An ATA hard disk, `sda`.
        Spinning,
        /// A virtio-blk disk that says it is rotational, `vda`.
        Virtio,
    }

    /// Writes `text` to `path`, making its directories.
    fn put(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// A disk's directory under `root/devices/`, with its queue and, when
    /// `device` is given, a `device/` holding those attributes.
    fn disk(root: &Path, at: &str, rotational: &str, device: &[(&str, &str)]) -> PathBuf {
        let d = root.join("devices").join(at);
        put(&d.join("queue/rotational"), rotational);
        if !device.is_empty() {
            std::fs::create_dir_all(d.join("device")).unwrap();
        }
        for (name, text) in device {
            put(&d.join("device").join(name), text);
        }
        d
    }

    /// Links `dev/block/NAME` to `devices/TO`, as sysfs does.
    fn link(root: &Path, name: &str, to: &str) {
        let links = root.join("dev/block");
        std::fs::create_dir_all(&links).unwrap();
        std::os::unix::fs::symlink(format!("../../devices/{to}"), links.join(name)).unwrap();
    }

    /// A sysfs tree with the devices a machine may have: a hard disk `sda`
    /// (8:0) with partitions 8:1 and 8:2, an SSD (259:0), the virtual disks
    /// of virtio (254:0, driver virtio_blk, with a partition 254:1), QEMU
    /// (8:16), Hyper-V (8:32), VMware (8:48) and Xen (202:0), all saying
    /// they are rotational, a loop device (7:0), and device-mapper volumes
    /// over the virtio disk (253:0) and over the hard disk's partition
    /// (253:1). `extra` (a "MAJ:MIN" name) links to the partition of `disk`.
    pub fn fake_sysfs(root: &Path, extra: &str, disk_under_extra: Disk) {
        let pci = "pci0000:00";
        let sda = disk(
            root,
            &format!("{pci}/ata1/block/sda"),
            "1\n",
            &[("vendor", "ATA     \n"), ("model", "ST4000DM004-2CV1\n")],
        );
        for part in ["sda1", "sda2", "sda3"] {
            put(&sda.join(part).join("partition"), "1\n");
        }
        disk(
            root,
            &format!("{pci}/nvme/block/nvme0n1"),
            "0\n",
            &[("model", "Samsung SSD\n")],
        );
        let vda = disk(
            root,
            &format!("{pci}/virtio1/block/vda"),
            "1\n",
            &[("modalias", "virtio:d00000002v00001AF4\n")],
        );
        put(&vda.join("vda1/partition"), "1\n");
        put(&vda.join("vda2/partition"), "1\n");
        let virtio_dev = root
            .join("devices")
            .join(pci)
            .join("virtio1/block/vda/device");
        std::fs::create_dir_all(root.join("bus/virtio/drivers/virtio_blk")).unwrap();
        std::os::unix::fs::symlink(
            root.join("bus/virtio/drivers/virtio_blk"),
            virtio_dev.join("driver"),
        )
        .unwrap();
        disk(
            root,
            &format!("{pci}/scsi0/block/sdb"),
            "1\n",
            &[("vendor", "QEMU    \n"), ("model", "QEMU HARDDISK   \n")],
        );
        disk(
            root,
            "vmbus/scsi1/block/sdc",
            "1\n",
            &[("vendor", "Msft    \n"), ("model", "Virtual Disk    \n")],
        );
        disk(
            root,
            &format!("{pci}/scsi2/block/sdd"),
            "1\n",
            &[("vendor", "VMware, \n"), ("model", "VMware Virtual S\n")],
        );
        disk(root, "vbd-51712/block/xvda", "1\n", &[("devtype", "vbd\n")]);
        disk(root, "virtual/block/loop0", "1\n", &[]);
        let dm0 = disk(root, "virtual/block/dm-0", "1\n", &[]);
        std::fs::create_dir_all(dm0.join("slaves")).unwrap();
        std::os::unix::fs::symlink(&vda, dm0.join("slaves/vda")).unwrap();
        let dm1 = disk(root, "virtual/block/dm-1", "1\n", &[]);
        std::fs::create_dir_all(dm1.join("slaves")).unwrap();
        std::os::unix::fs::symlink(sda.join("sda1"), dm1.join("slaves/sda1")).unwrap();
        // `extra` may be one of these (the machine's own disk's numbers).
        let link = |name: &str, to: &str| {
            if name != extra {
                link(root, name, to);
            }
        };
        link("8:0", &format!("{pci}/ata1/block/sda"));
        link("8:1", &format!("{pci}/ata1/block/sda/sda1"));
        link("8:2", &format!("{pci}/ata1/block/sda/sda2"));
        link("259:0", &format!("{pci}/nvme/block/nvme0n1"));
        link("254:0", &format!("{pci}/virtio1/block/vda"));
        link("254:1", &format!("{pci}/virtio1/block/vda/vda1"));
        link("8:16", &format!("{pci}/scsi0/block/sdb"));
        link("8:32", "vmbus/scsi1/block/sdc");
        link("8:48", &format!("{pci}/scsi2/block/sdd"));
        link("202:0", "vbd-51712/block/xvda");
        link("7:0", "virtual/block/loop0");
        link("253:0", "virtual/block/dm-0");
        link("253:1", "virtual/block/dm-1");
        match disk_under_extra {
            Disk::Spinning => self::link(root, extra, &format!("{pci}/ata1/block/sda/sda3")),
            Disk::Virtio => self::link(root, extra, &format!("{pci}/virtio1/block/vda/vda2")),
        }
    }

    #[test]
    fn rotational_decision() {
        let root = temp_dir("sysfs");
        fake_sysfs(&root, "1:1", Disk::Spinning);
        let m = |major, minor| media(&root, makedev(major, minor));
        assert_eq!(m(8, 0), Media::Spinning, "a hard disk");
        assert_eq!(m(8, 1), Media::Spinning, "a partition: its disk's");
        assert_eq!(m(1, 1), Media::Spinning, "another partition");
        assert_eq!(m(259, 0), Media::Solid);
        assert_eq!(m(254, 0), Media::NotSpinning, "virtio-blk says rotational");
        assert_eq!(m(254, 1), Media::NotSpinning, "a virtio partition");
        assert_eq!(m(8, 16), Media::NotSpinning, "QEMU's SCSI disk");
        assert_eq!(m(8, 32), Media::NotSpinning, "Hyper-V's disk");
        assert_eq!(m(8, 48), Media::NotSpinning, "VMware's disk");
        assert_eq!(m(202, 0), Media::NotSpinning, "Xen's disk");
        assert_eq!(m(7, 0), Media::NotSpinning, "a loop device");
        assert_eq!(m(253, 0), Media::NotSpinning, "LVM over virtio");
        assert_eq!(m(253, 1), Media::Spinning, "LVM over a hard disk");
        assert_eq!(m(0, 45), Media::Unlisted, "not in sysfs (tmpfs)");
        assert_eq!(m(7, 3), Media::Unlisted);
        // The same hard disk marked solid-state.
        put(
            &root.join("devices/pci0000:00/ata1/block/sda/queue/rotational"),
            "0\n",
        );
        assert_eq!(m(8, 1), Media::Solid);
        assert_eq!(m(253, 1), Media::NotSpinning);
        std::fs::remove_dir_all(&root).unwrap();
    }
}
