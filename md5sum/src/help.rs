//! The texts of `--help` and `--version`: GNU md5sum's, with what this
//! md5sum adds (`-j`, `--etag`) and how it reads, and the backends it runs.

/// What `--help` prints.
pub fn help(prog: &str) -> String {
    format!(
        "\
Usage: {prog} [OPTION]... [FILE]...
Print or check MD5 (128-bit) checksums.

With no FILE, or when FILE is -, read standard input.
  -b, --binary          read in binary mode
  -c, --check           read checksums from the FILEs and check them
      --tag             create a BSD-style checksum
  -t, --text            read in text mode (default)
  -z, --zero            end each output line with NUL, not newline,
                          and disable file name escaping
  -j, --jobs=N          hash with at most N threads (default: one per CPU,
                          at most 256); 1 hashes one file after another
      --etag=SIZE       print S3 ETags for uploads in parts of SIZE bytes,
                          not MD5 sums; with -c, check ETag lines too
                          (with that part size, or auto: see below)

The following five options are useful only when verifying checksums:
      --ignore-missing  don't fail or report status for missing files
      --quiet           don't print OK for each successfully verified file
      --status          don't output anything, status code shows success
      --strict          exit non-zero for improperly formatted checksum lines
  -w, --warn            warn about improperly formatted checksum lines

      --help        display this help and exit
      --version     output version information and exit

The sums are computed as described in RFC 1321.
When checking, the input should be a former output of this program.
The default mode is to print a line with: checksum, a space,
a character indicating input mode ('*' for binary, ' ' for text
or where binary is insignificant), and name for each FILE.

Note: binary mode and text mode read files the same way.

With --etag=SIZE, each line gives the ETag that S3 and S3-compatible stores
show for the file uploaded as the AWS CLI uploads it, in parts of SIZE
bytes: a file shorter than SIZE is uploaded whole, and its ETag is its MD5;
a longer one in N parts, and its ETag is 'MD5-N', the MD5 of the MD5s of
its parts. More than 10,000 parts, S3's limit, is an error for that file.
SIZE is a number of bytes, optionally followed by K, M, G or T, KiB, MiB,
GiB or TiB, or KB, MB, GB or TB, all powers of 1024, as the AWS CLI reads
its settings ('multipart_chunksize = 8MB' is 8MiB). Part sizes of common
clients: AWS CLI and boto3 8MiB, rclone 5MiB, s3cmd 15MiB, MinIO mc 16MiB,
s5cmd 50MiB. With --tag a line is 'ETag (NAME) = ETAG'.

With -c and --etag, a list may hold lines 'ETAG  NAME', ETAG with or
without the double quotes S3 returns, among MD5 lines. --etag=auto tries,
one after another, the part sizes that give ETAG's part count for the
file's length: of the clients' part sizes above, in that order, then the
smallest of 8MiB doubled (AWS CLI, boto3), of the multiples of 16MiB and of
the whole MiB; each try reads the file once. A match prints
'NAME: OK (part size BYTES)'. Standard input and pipes are read once, the
five clients' part sizes hashed side by side.

Reading is apart from hashing, and -j does not limit it: what is not in the
page cache is asked of the kernel before it is waited for, a long input is
read on a thread of its own while it is hashed, and files on a spinning
disk are read one at a time, in argument order, while other threads hash.{IO_NOTE}{PLATFORM_NOTE}
"
    )
}

/// How --help says a spinning disk is told apart.
#[cfg(target_os = "linux")]
const IO_NOTE: &str = "
A disk spins when sysfs says it is rotational and not a virtual disk
(virtio, Xen, Hyper-V, VMware, QEMU); MD5SUM_SYSFS=DIR reads that from DIR
instead of /sys.";
#[cfg(not(target_os = "linux"))]
const IO_NOTE: &str = "
Spinning disks are told apart from Linux's sysfs only: here every disk is
read side by side.";

/// What --help adds where this md5sum differs from GNU's build there.
#[cfg(windows)]
const PLATFORM_NOTE: &str = "
On Windows binary mode is the default, as in GNU's Windows builds, but text
mode (-t) does not translate CR-LF line ends as theirs does: it only marks
the name with ' ' instead of '*'. Error messages are Windows' own.";
#[cfg(not(windows))]
const PLATFORM_NOTE: &str = "";

/// What `--version` prints.
pub fn version() -> String {
    format!(
        "\
md5sum (md5sum-rs) {}
MD5 backends: {} (one stream), {} with {} lanes (many streams)
License MIT OR Apache-2.0.
This is free software: you are free to change and redistribute it.
There is NO WARRANTY, to the extent permitted by law.
",
        env!("CARGO_PKG_VERSION"),
        md5x::backend(),
        md5x::multi::backend(),
        md5x::multi::lanes(),
    )
}
