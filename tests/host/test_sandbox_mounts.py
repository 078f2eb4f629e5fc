"""Second paths to a denied file: the same file system mounted again elsewhere (``mountinfo``)."""

from __future__ import annotations

from acphost.host._mounts import other_terminals, parse_mountinfo, second_paths

# A root file system, a home bound at /mnt/home, all of / bound at /srv/all,
# another device at /data (whose folder /data/keys is bound at /opt/keys),
# and a mount point with a space (written \040).
MOUNTINFO = """\
22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw
30 22 0:5 / /dev rw,nosuid shared:2 - devtmpfs udev rw
41 22 8:1 /home/u /mnt/home rw,relatime shared:1 - ext4 /dev/sda1 rw
42 22 8:1 / /srv/all rw,relatime shared:1 - ext4 /dev/sda1 rw
43 22 8:2 / /data rw,relatime - ext4 /dev/sda2 rw
44 22 8:2 /keys /opt/keys rw,relatime - ext4 /dev/sda2 rw
45 22 8:1 /home/u/.ssh/inner /my\\040stuff rw - ext4 /dev/sda1 rw
46 30 0:24 / /dev/pts rw shared:3 - devpts devpts rw,mode=600
47 30 0:24 /0 /dev/console rw master:3 - devpts devpts rw,mode=600
not a mount line
"""


def test_a_denied_path_is_found_through_every_mount_of_its_file_system():
    mounts = parse_mountinfo(MOUNTINFO)
    assert second_paths(["/home/u/.ssh"], mounts) == [
        "/mnt/home/.ssh",
        "/srv/all/home/u/.ssh",
        "/my stuff",  # a mount showing a folder inside the denied one: denied whole
    ]


def test_a_denied_path_on_another_device_or_beneath_a_bind():
    mounts = parse_mountinfo(MOUNTINFO)
    assert second_paths(["/data/keys/id"], mounts) == ["/opt/keys/id"]
    # Named through the bind: the original place is a second path too.
    assert "/home/u/.aws" in second_paths(["/mnt/home/.aws"], mounts)


def test_no_other_mount_no_second_path():
    mounts = parse_mountinfo(MOUNTINFO)
    assert second_paths(["/dev/shm/x"], mounts) == []
    assert second_paths(["/etc/passwd"], parse_mountinfo("22 1 8:1 / / rw - ext4 x rw\n")) == []


def test_a_terminal_bound_outside_dev_pts_is_found():
    mounts = parse_mountinfo(MOUNTINFO)
    assert other_terminals(mounts) == ["/dev/console"]
    assert [m.fstype for m in mounts][:2] == ["ext4", "devtmpfs"]
