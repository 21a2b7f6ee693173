package bench

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/riot-tools/riot/internal/benchrotate"
)

// The floor under one exchange on a link: two Go processes bouncing 200
// bytes over a socketpair, four ways, rotated in one loop. A way is how
// each side reads (Go's netpoller, or poll(2) blocking in the thread) and
// whether the answering side answers from a goroutine started per message,
// as the plugin serves each exchange, or on the goroutine that read it.

// pingpongEnv makes the bench binary the answering side of a way, on fd 3.
const pingpongEnv = "RIOT_BENCH_PINGPONG"

// pingpongChild serves a way's answering side if this process is one, and
// reports whether it was.
func pingpongChild() bool {
	way := os.Getenv(pingpongEnv)
	if way == "" {
		return false
	}
	poll, spawn := way[0] == 'p', way[1] == 'g'
	c := pingConn(os.NewFile(3, "socket"), poll)
	buf := make([]byte, 512)
	for {
		n, err := c.Read(buf)
		if err != nil {
			return true // the benchmark closed its end
		}
		if !spawn {
			_, _ = c.Write(buf[:n])
			continue
		}
		msg := append([]byte(nil), buf[:n]...)
		go func() { _, _ = c.Write(msg) }()
	}
}

// pollConn reads with poll(2) in the calling thread, not the netpoller.
type pollConn struct {
	*net.UnixConn
	raw syscall.RawConn
}

func (p *pollConn) Read(b []byte) (int, error) {
	var n int
	var rerr error
	err := p.raw.Read(func(fd uintptr) bool {
		for {
			n, rerr = unix.Read(int(fd), b)
			switch {
			case errors.Is(rerr, unix.EAGAIN):
				_, perr := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, -1)
				if perr != nil && !errors.Is(perr, unix.EINTR) {
					rerr = perr
					return true
				}
			case errors.Is(rerr, unix.EINTR):
			default:
				return true
			}
		}
	})
	if err == nil {
		err = rerr
	}
	if err == nil && n == 0 {
		err = errors.New("closed")
	}
	return n, err
}

type readWriter interface {
	Read([]byte) (int, error)
	Write([]byte) (int, error)
}

func pingConn(f *os.File, poll bool) readWriter {
	c, err := net.FileConn(f)
	_ = f.Close()
	if err != nil {
		panic(err)
	}
	u := c.(*net.UnixConn)
	if !poll {
		return u
	}
	raw, err := u.SyscallConn()
	if err != nil {
		panic(err)
	}
	return &pollConn{UnixConn: u, raw: raw}
}

// BenchmarkSocketPingPong rotates the four ways: "ng" netpoll with a
// goroutine per message (the plugin's way), "ni" netpoll answered inline,
// "pi" poll(2) on both sides answered inline, "pg" poll(2) with a
// goroutine per message.
func BenchmarkSocketPingPong(b *testing.B) {
	names := []string{"ng", "ni", "pi", "pg"}
	ways := make([]func(), len(names))
	for i, way := range names {
		fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			b.Fatal(err)
		}
		child := os.NewFile(uintptr(fds[1]), "child")
		cmd := exec.Command(os.Args[0], "-test.run", "^$")
		cmd.Env = append(os.Environ(), pingpongEnv+"="+way)
		cmd.ExtraFiles = []*os.File{child}
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		_ = child.Close()
		c := pingConn(os.NewFile(uintptr(fds[0]), "parent"), way[0] == 'p')
		b.Cleanup(func() {
			_ = c.(interface{ Close() error }).Close()
			_ = cmd.Wait()
		})
		msg, buf := make([]byte, 200), make([]byte, 512)
		ways[i] = func() {
			if _, err := c.Write(msg); err != nil {
				b.Fatal(err)
			}
			for got := 0; got < len(msg); {
				n, err := c.Read(buf)
				if err != nil {
					b.Fatal(err)
				}
				got += n
			}
		}
		for range 100 {
			ways[i]() // warm
		}
	}
	total := benchrotate.Totals(b, ways)
	for i, name := range names {
		b.ReportMetric(float64(total[i].Nanoseconds())/1e3/float64(b.N), name+"-us")
		if i > 0 {
			b.ReportMetric(float64(total[i])/float64(total[0]), fmt.Sprintf("%s/ng", name))
		}
	}
}
