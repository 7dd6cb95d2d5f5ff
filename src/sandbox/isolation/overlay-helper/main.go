// Command lore-overlay sets up the copy-on-write view of a sandbox session's workspace
// (docs/sandbox.md, "Workspaces") and reads what the overlay's upper layer records.
//
//	lore-overlay mount [--userxattr] [--as UID:GID] [--home UID] --root DIR --session NAME --slot NAME --lower DIR -- ARGV...
//	lore-overlay opaque [--userxattr] DIR
//
// mount runs in a mount namespace of its own, made by unshare(1) just before it (as root:
// `unshare --mount`; unprivileged: `unshare --user --map-current-user --mount --keep-caps`). It
// mounts, over the session workdir DIR/NAME (which becomes the overlay's upper layer), a kernel
// overlay whose lower layer is a read-only clone of the workspace given by --lower (its scratch
// directories are DIR/.NAME.ovl/{l,w,r}SLOT, one set per concurrent run), then
// gives up every privilege and execs ARGV (the run's sh → prlimit → bwrap chain, which binds the
// workdir path at /work). The mounts exist only in that namespace and go with its last process.
//
// As root (--as), the command runs as UID:GID, so the clone of the workspace is idmapped: its
// owner's uid and gid appear as UID and GID (the command may change the project's files, copied
// up into the session's layer). With --home, the session's layer is seen through an idmapped
// clone as well: what is on disk as HOME (the session's home uid) appears as UID, and what UID
// writes lands as HOME, so a run on a borrowed uid owns the session's files like a run on its
// home uid. Unprivileged, the namespace maps the runtime user to itself, and the overlay keeps
// its bookkeeping in user.* extended attributes (--userxattr).
//
// The workspace path is opened with RESOLVE_NO_SYMLINKS: a symbolic link anywhere in it (the
// caller passes the resolved path) is refused rather than followed.
//
// opaque prints, NUL-separated, the paths (relative to DIR) of the directories below DIR that
// the overlay marked opaque: a directory a command removed and made again, whose lower
// counterpart's entries are hidden.
package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"unsafe"
)

// System call numbers: the same on every architecture (they came after the tables were unified).
const (
	sysOpenTree     = 428
	sysMoveMount    = 429
	sysOpenat2      = 437
	sysMountSetattr = 442

	openTreeClone       = 0x1
	atEmptyPath         = 0x1000
	moveMountFEmptyPath = 0x4
	oPath               = 0x200000

	mountAttrRdonly = 0x1
	mountAttrNosuid = 0x2
	mountAttrNodev  = 0x4
	mountAttrIdmap  = 0x100000

	resolveNoMagiclinks = 0x2
	resolveNoSymlinks   = 0x4

	prCapAmbient         = 47
	prCapAmbientClearAll = 4
)

// atFdcwd is AT_FDCWD (a variable: a negative constant cannot be converted to uintptr).
var atFdcwd = -100

type mountAttr struct {
	attrSet     uint64
	attrClr     uint64
	propagation uint64
	usernsFd    uint64
}

type openHow struct {
	flags   uint64
	mode    uint64
	resolve uint64
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "lore-overlay: "+format+"\n", args...)
	os.Exit(125)
}

func cstr(s string) *byte {
	p, err := syscall.BytePtrFromString(s)
	if err != nil {
		fail("bad path %q", s)
	}
	return p
}

// openNoSymlinks opens an absolute directory as an O_PATH fd, refusing symbolic links anywhere in it.
func openNoSymlinks(path string) (int, error) {
	how := openHow{flags: oPath | syscall.O_DIRECTORY | syscall.O_CLOEXEC, resolve: resolveNoSymlinks | resolveNoMagiclinks}
	fd, _, errno := syscall.Syscall6(sysOpenat2, uintptr(atFdcwd), uintptr(unsafe.Pointer(cstr(path))), uintptr(unsafe.Pointer(&how)), unsafe.Sizeof(how), 0, 0)
	if errno != 0 {
		return -1, errno
	}
	return int(fd), nil
}

// cloneTree makes a detached copy of the mount at dirFd (that directory only, no submounts).
func cloneTree(dirFd int) (int, error) {
	fd, _, errno := syscall.Syscall(sysOpenTree, uintptr(dirFd), uintptr(unsafe.Pointer(cstr(""))), openTreeClone|atEmptyPath|syscall.O_CLOEXEC)
	if errno != 0 {
		return -1, errno
	}
	return int(fd), nil
}

func setAttr(treeFd int, attr mountAttr) error {
	_, _, errno := syscall.Syscall6(sysMountSetattr, uintptr(treeFd), uintptr(unsafe.Pointer(cstr(""))), atEmptyPath, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if errno != 0 {
		return errno
	}
	return nil
}

func attach(treeFd int, target string) error {
	_, _, errno := syscall.Syscall6(sysMoveMount, uintptr(treeFd), uintptr(unsafe.Pointer(cstr(""))), uintptr(atFdcwd), uintptr(unsafe.Pointer(cstr(target))), moveMountFEmptyPath, 0)
	if errno != 0 {
		return errno
	}
	return nil
}

// idmapUserns returns an fd of a new user namespace with these uid and gid maps ("inside outside count"
// lines), made by a short-lived child of this program that waits until the fd is open.
func idmapUserns(uidMap, gidMap []syscall.SysProcIDMap) (int, error) {
	cmd := exec.Command("/proc/self/exe", "hold")
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER,
		UidMappings: uidMap,
		GidMappings: gidMap,
		Pdeathsig:   syscall.SIGKILL,
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return -1, err
	}
	if err := cmd.Start(); err != nil {
		return -1, fmt.Errorf("user namespace for the idmap: %w", err)
	}
	fd, err := syscall.Open(fmt.Sprintf("/proc/%d/ns/user", cmd.Process.Pid), syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	stdin.Close()
	_ = cmd.Wait()
	if err != nil {
		return -1, fmt.Errorf("user namespace for the idmap: %w", err)
	}
	return fd, nil
}

// cloneAt attaches a read-only (when ro) clone of dir at target, idmapped through userns when it is >= 0.
func cloneAt(dir string, target string, ro bool, userns int) error {
	dirFd, err := openNoSymlinks(dir)
	if err != nil {
		return fmt.Errorf("open %s: %w", dir, err)
	}
	defer syscall.Close(dirFd)
	tree, err := cloneTree(dirFd)
	if err != nil {
		return fmt.Errorf("clone %s: %w", dir, err)
	}
	defer syscall.Close(tree)
	attr := mountAttr{attrSet: mountAttrNosuid | mountAttrNodev}
	if ro {
		attr.attrSet |= mountAttrRdonly
	}
	if userns >= 0 {
		attr.attrSet |= mountAttrIdmap
		attr.usernsFd = uint64(userns)
	}
	if err := setAttr(tree, attr); err != nil {
		return fmt.Errorf("mount attributes of the clone of %s: %w", dir, err)
	}
	if err := attach(tree, target); err != nil {
		return fmt.Errorf("attach the clone of %s: %w", dir, err)
	}
	return nil
}

func ids(s string) (int, int) {
	parts := strings.SplitN(s, ":", 2)
	if len(parts) != 2 {
		fail("--as wants UID:GID, got %q", s)
	}
	uid, e1 := strconv.Atoi(parts[0])
	gid, e2 := strconv.Atoi(parts[1])
	if e1 != nil || e2 != nil || uid <= 0 || gid <= 0 {
		fail("--as wants positive UID:GID, got %q", s)
	}
	return uid, gid
}

// plain: a name of letters, digits, '.', '_' and '-' (used inside overlay's comma-separated options).
func plain(s string) bool {
	if s == "" || s[0] == '.' {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

func mkdirs(paths ...string) {
	for _, p := range paths {
		if err := os.Mkdir(p, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			fail("%v", err)
		}
	}
}

func mountCmd(args []string) {
	var root, session, lower, as, slot string
	home := -1
	userxattr := false
	i := 0
	for ; i < len(args) && args[i] != "--"; i++ {
		next := func() string {
			i++
			if i >= len(args) {
				fail("%s needs a value", args[i-1])
			}
			return args[i]
		}
		switch args[i] {
		case "--root":
			root = next()
		case "--session":
			session = next()
		case "--lower":
			lower = next()
		case "--slot":
			slot = next()
		case "--as":
			as = next()
		case "--home":
			home, _ = strconv.Atoi(next())
		case "--userxattr":
			userxattr = true
		default:
			fail("unknown option %q", args[i])
		}
	}
	if i >= len(args)-1 {
		fail("no command after --")
	}
	argv := args[i+1:]
	if !filepath.IsAbs(root) || !filepath.IsAbs(lower) || session == "" || !plain(session) || !plain(slot) {
		fail("mount needs an absolute --root and --lower, and plain --session and --slot names")
	}
	upper := filepath.Join(root, session)
	layer := filepath.Join(root, "."+session+".ovl")
	n := slot
	lowerAt, workDir, upperAt := filepath.Join(layer, "l"+n), filepath.Join(layer, "w"+n), filepath.Join(layer, "r"+n)
	mkdirs(layer, lowerAt, workDir)

	uid, gid := -1, -1
	lowerNs, upperNs := -1, -1
	if as != "" {
		uid, gid = ids(as)
		var st syscall.Stat_t
		if err := syscall.Stat(lower, &st); err != nil {
			fail("stat %s: %v", lower, err)
		}
		// The project's owner appears as the run's uid (and its group as the run's group).
		ns, err := idmapUserns(
			[]syscall.SysProcIDMap{{ContainerID: int(st.Uid), HostID: uid, Size: 1}},
			[]syscall.SysProcIDMap{{ContainerID: int(st.Gid), HostID: gid, Size: 1}},
		)
		if err != nil {
			fail("%v", err)
		}
		lowerNs = ns
		if home > 0 && home != uid {
			// The session's files (home uid) appear as the run's uid; root's stay root's.
			ns, err := idmapUserns(
				[]syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 1}, {ContainerID: home, HostID: uid, Size: 1}},
				[]syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 1}, {ContainerID: gid, HostID: gid, Size: 1}},
			)
			if err != nil {
				fail("%v", err)
			}
			upperNs = ns
		}
	}
	if err := cloneAt(lower, lowerAt, true, lowerNs); err != nil {
		fail("%v", err)
	}
	// Options name paths relative to the layer directory: the sandbox root may hold ',' or ':'.
	upperOpt, workOpt := "../"+session, "w"+n
	if upperNs >= 0 {
		// Upper and work directories must be on one mount: an idmapped clone of the sandbox root.
		mkdirs(upperAt)
		if err := cloneAt(root, upperAt, false, upperNs); err != nil {
			fail("%v", err)
		}
		upperOpt, workOpt = "r"+n+"/"+session, "r"+n+"/."+session+".ovl/w"+n
	}
	if err := syscall.Chdir(layer); err != nil {
		fail("chdir %s: %v", layer, err)
	}
	opts := "lowerdir=l" + n + ",upperdir=" + upperOpt + ",workdir=" + workOpt + ",redirect_dir=nofollow,index=off,metacopy=off,xino=off"
	if userxattr {
		opts += ",userxattr"
	}
	if err := syscall.Mount("overlay", upper, "overlay", syscall.MS_NOSUID|syscall.MS_NODEV, opts); err != nil {
		fail("mount the overlay on %s (%s): %v", upper, opts, err)
	}
	if err := syscall.Chdir("/"); err != nil {
		fail("chdir /: %v", err)
	}
	if uid >= 0 {
		if err := syscall.Setgroups(nil); err != nil {
			fail("setgroups: %v", err)
		}
		if err := syscall.Setgid(gid); err != nil {
			fail("setgid: %v", err)
		}
		if err := syscall.Setuid(uid); err != nil {
			fail("setuid: %v", err)
		}
	}
	// Nothing of the namespace's capabilities survives the exec (the command's uid is not 0 there).
	if _, _, errno := syscall.RawSyscall6(syscall.SYS_PRCTL, prCapAmbient, prCapAmbientClearAll, 0, 0, 0, 0); errno != 0 {
		fail("clear ambient capabilities: %v", errno)
	}
	path := argv[0]
	if !filepath.IsAbs(path) {
		fail("the command must be an absolute path, got %q", path)
	}
	err := syscall.Exec(path, argv, os.Environ())
	fail("exec %s: %v", path, err)
}

func lgetxattr(path, name string, buf []byte) (int, error) {
	n, _, errno := syscall.Syscall6(syscall.SYS_LGETXATTR, uintptr(unsafe.Pointer(cstr(path))), uintptr(unsafe.Pointer(cstr(name))), uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), 0, 0)
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}

func opaqueCmd(args []string) {
	ns := "trusted"
	if len(args) > 0 && args[0] == "--userxattr" {
		ns = "user"
		args = args[1:]
	}
	if len(args) != 1 || !filepath.IsAbs(args[0]) {
		fail("opaque wants [--userxattr] DIR (absolute)")
	}
	dir := args[0]
	name := ns + ".overlay.opaque"
	buf := make([]byte, 8)
	out := os.Stdout
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // gone meanwhile, or unreadable: nothing to report
		}
		if !d.IsDir() || p == dir {
			return nil
		}
		if n, err := lgetxattr(p, name, buf); err == nil && n == 1 && buf[0] == 'y' {
			rel, _ := filepath.Rel(dir, p)
			fmt.Fprint(out, rel, "\x00")
		}
		return nil
	})
	if err != nil {
		fail("%v", err)
	}
}

// Capabilities are a thread's, not the process's: clearing the ambient set (mountCmd) and the exec
// that follows must run on one OS thread, or an exec from another thread of the runtime hands the
// command the namespace's capabilities (bwrap then refuses: "Unexpected capabilities but not
// setuid"). The main goroutine stays on the main thread.
func init() {
	runtime.LockOSThread()
}

func main() {
	if len(os.Args) < 2 {
		fail("usage: lore-overlay mount|opaque ...")
	}
	switch os.Args[1] {
	case "mount":
		mountCmd(os.Args[2:])
	case "opaque":
		opaqueCmd(os.Args[2:])
	case "hold":
		// Child of idmapUserns: keeps its user namespace alive until the parent closes stdin.
		buf := make([]byte, 1)
		_, _ = os.Stdin.Read(buf)
	case "version":
		fmt.Println("lore-overlay 1")
	default:
		fail("unknown subcommand %q", os.Args[1])
	}
}
