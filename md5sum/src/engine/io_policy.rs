//! The I/O policy: which disks are read one file at a time, in argument
//! order (really rotational ones), the turn that orders those reads, how
//! much of them may wait in memory, and how far ahead the kernel is asked
//! to read.
//!
//! Many virtual disks (virtio-blk, Xen, Hyper-V, VMware, QEMU's emulated
//! disks) say `queue/rotational = 1` whatever is behind them, so the flag
//! alone is not trusted: a disk spins when the flag says so and sysfs does
//! not show it to be a virtual disk or a device stacked on ones that do
//! not spin. Data already in the page cache never waits for the turn.

// sysfs is only looked at on Unix (where `st_dev` exists).
#![cfg_attr(not(unix), allow(dead_code))]

use super::fds::{briefly, open};
use super::lock;
use std::collections::BTreeSet;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};

/// The most bytes the kernel is asked to read ahead for one file that is
/// not in the page cache; the file's own sequential readahead takes over
/// from there. Asking for whole 1 MiB files made 100 of them cold take a
/// third longer here than asking for their first 256 KiB (the whole claim's
/// reads were submitted before the first file could be hashed).
pub const HINT_MAX: u64 = 256 << 10;

/// The most bytes of the next file on a spinning disk asked of the kernel
/// while one is read in its turn.
pub const HINT_MAX_IN_TURN: u64 = 8 << 20;

/// The most bytes of files on spinning disks held in memory between being
/// read in the disk's turn and being hashed, across all threads. A file
/// that does not fit is streamed in its turn instead, read as it is hashed.
const IN_MEMORY: usize = 64 << 20;

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
    let mut f = open(path, || false).ok()?;
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
    let slaves: Vec<PathBuf> = briefly(|| {
        std::fs::read_dir(disk.join("slaves"))?
            .map(|e| e.map(|e| e.path()))
            .collect()
    })
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

/// Hands the spinning disks to one claim at a time, in claim order, so
/// that their files are read in argument order by one reader at a time.
/// Every claim gets a [`Ticket`] in order and passes it exactly once
/// (when dropped), whether or not it waited for its turn.
pub struct Turnstile {
    turns: Mutex<Turns>,
    turned: Condvar,
}

#[derive(Default)]
struct Turns {
    /// The ticket whose turn it is.
    next: u64,
    /// Later tickets already passed.
    passed: BTreeSet<u64>,
}

impl Turnstile {
    pub fn new() -> Self {
        Turnstile {
            turns: Mutex::new(Turns::default()),
            turned: Condvar::new(),
        }
    }

    /// The ticket numbered `number`; numbers are handed out from 0 up,
    /// each once.
    pub fn ticket(&self, number: u64) -> Ticket<'_> {
        Ticket {
            turnstile: Some(self),
            number,
        }
    }
}

/// A claim's place in the disk's order; see [`Turnstile`].
pub struct Ticket<'t> {
    turnstile: Option<&'t Turnstile>,
    number: u64,
}

impl Ticket<'_> {
    /// A ticket that waits for nobody, for a claim outside the order.
    pub fn unordered() -> Ticket<'static> {
        Ticket {
            turnstile: None,
            number: 0,
        }
    }

    /// Waits until every earlier ticket has passed: the disk is this
    /// claim's until the ticket is dropped. Call it holding no descriptor
    /// that an earlier claim may be waiting for.
    pub fn wait(&self) {
        let Some(t) = self.turnstile else { return };
        let mut turns = lock(&t.turns);
        while turns.next != self.number {
            turns = t.turned.wait(turns).unwrap_or_else(|e| e.into_inner());
        }
    }
}

impl Drop for Ticket<'_> {
    fn drop(&mut self) {
        let Some(t) = self.turnstile else { return };
        let mut turns = lock(&t.turns);
        turns.passed.insert(self.number);
        while let Some(n) = turns.passed.first().copied().filter(|&n| n == turns.next) {
            turns.passed.remove(&n);
            turns.next += 1;
        }
        drop(turns);
        t.turned.notify_all();
    }
}

/// Bytes counted against [`IN_MEMORY`] until dropped.
pub struct Held(usize);

/// Bytes held against [`IN_MEMORY`] now.
static HELD: AtomicUsize = AtomicUsize::new(0);

/// Reserves `n` bytes of [`IN_MEMORY`], if that many are left.
pub fn hold(n: u64) -> Option<Held> {
    let n = usize::try_from(n).ok()?;
    HELD.fetch_update(Ordering::AcqRel, Ordering::Acquire, |held| {
        held.checked_add(n).filter(|&t| t <= IN_MEMORY)
    })
    .ok()?;
    Some(Held(n))
}

impl Drop for Held {
    fn drop(&mut self) {
        HELD.fetch_sub(self.0, Ordering::AcqRel);
    }
}

#[cfg(all(test, unix))]
pub mod tests {
    use super::*;
    use crate::engine::tests::temp_dir;

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

    /// Tickets take their turns in number order, whichever thread waits
    /// first, and tickets passed without waiting do not hold the others up.
    #[test]
    fn turns_follow_ticket_order() {
        let turnstile = Turnstile::new();
        let order = Mutex::new(Vec::new());
        std::thread::scope(|s| {
            for n in (0..16u64).rev() {
                let (turnstile, order) = (&turnstile, &order);
                s.spawn(move || {
                    let ticket = turnstile.ticket(n);
                    if n % 3 == 0 {
                        return; // passed without waiting
                    }
                    std::thread::sleep(std::time::Duration::from_millis(16 - n));
                    ticket.wait();
                    lock(order).push(n);
                });
            }
        });
        let want: Vec<u64> = (0..16).filter(|n| n % 3 != 0).collect();
        assert_eq!(order.into_inner().unwrap(), want);
    }
}
