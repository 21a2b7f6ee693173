package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"

	"golang.org/x/sys/unix"
)

// The plugin and a long-lived sandbox's init speak over a SOCK_SEQPACKET
// socketpair: one JSON message per packet, descriptors alongside. A start
// request's command line and environment travel in the request when they
// fit in maxInlineSpec, and otherwise in a memfd passed first, so that no
// environment is too large for a packet.

// request is what the plugin asks of the init.
type request struct {
	Op string `json:"op"` // opStart or opSignal
	ID uint64 `json:"id"`
	// FDs are the command's descriptor numbers of the files passed with
	// a start request, after the spec's memfd if any, in the same order.
	FDs []int `json:"fds,omitempty"`
	Sig int   `json:"sig,omitempty"`
	// Spec is a start request's command when it is small enough; without
	// it the command is in the memfd.
	Spec *spec `json:"spec,omitempty"`
}

// spec is a start request's command.
type spec struct {
	Path string   `json:"path"`
	Args []string `json:"args"`
	Env  []string `json:"env"`
	Dir  string   `json:"dir"`
}

// reply is what the init answers: a started command's pid, why it could
// not start, or how it ended.
type reply struct {
	ID     uint64 `json:"id"`
	Pid    int    `json:"pid,omitempty"`
	Err    string `json:"err,omitempty"`
	Exited bool   `json:"exited,omitempty"`
	Status int    `json:"status,omitempty"`
	// Dirty: what the command left in /tmp or /dev/shm could not all be
	// removed, so the sandbox must take no other command.
	Dirty bool `json:"dirty,omitempty"`
}

const (
	opStart  = "start"
	opSignal = "signal"
	// maxPacket bounds a message; requests and replies are far smaller.
	maxPacket = 64 << 10
	// maxFDs bounds the descriptors a start request passes.
	maxFDs = 64
	// maxInlineSpec bounds the encoded command that travels in the start
	// request itself, well inside maxPacket.
	maxInlineSpec = 32 << 10
)

// socketpair is a connected SOCK_SEQPACKET pair: the plugin's end as a
// conn, the init's as a file to pass to bwrap.
func socketpair() (*net.UnixConn, *os.File, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, err
	}
	mine := os.NewFile(uintptr(fds[0]), "riot-sandbox")
	defer mine.Close()
	conn, err := fileConn(mine)
	if err != nil {
		_ = unix.Close(fds[1])
		return nil, nil, err
	}
	return conn, os.NewFile(uintptr(fds[1]), "riot-sandbox-init"), nil
}

// fileConn is f as a conn (a dup of it; f stays the caller's to close).
func fileConn(f *os.File) (*net.UnixConn, error) {
	c, err := net.FileConn(f)
	if err != nil {
		return nil, err
	}
	uc, ok := c.(*net.UnixConn)
	if !ok {
		_ = c.Close()
		return nil, errors.New("not a unix socket")
	}
	return uc, nil
}

func sendMsg(c *net.UnixConn, v any, files []int) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	var oob []byte
	if len(files) > 0 {
		oob = unix.UnixRights(files...)
	}
	_, _, err = c.WriteMsgUnix(b, oob, nil)
	return err
}

// msgBuf is the room one reader receives messages in, reused for each:
// a packet's worth for every message made the plugin collect garbage
// every few commands.
type msgBuf struct{ buf, oob []byte }

func newMsgBuf() *msgBuf {
	return &msgBuf{buf: make([]byte, maxPacket), oob: make([]byte, unix.CmsgSpace(4*maxFDs))}
}

// recv reads one message into v, with the descriptors that came with it
// (close-on-exec). io.EOF is the other end gone.
func (m *msgBuf) recv(c *net.UnixConn, v any) ([]*os.File, error) {
	n, oobn, flags, _, err := c.ReadMsgUnix(m.buf, m.oob)
	if err != nil {
		return nil, err
	}
	return decodeMsg(m.buf[:n], m.oob[:oobn], flags, v)
}

// sendMsgFD and recvFD are sendMsg and recv on a blocking socket, for
// the init, which calls them on its one thread.
func sendMsgFD(fd int, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	for {
		err = unix.Sendmsg(fd, b, nil, nil, 0)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}

func (m *msgBuf) recvFD(fd int, v any) ([]*os.File, error) {
	for {
		n, oobn, flags, _, err := unix.Recvmsg(fd, m.buf, m.oob, unix.MSG_CMSG_CLOEXEC)
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case err != nil:
			return nil, err
		}
		return decodeMsg(m.buf[:n], m.oob[:oobn], flags, v)
	}
}

// decodeMsg reads a received message into v and returns its descriptors.
func decodeMsg(b, oob []byte, flags int, v any) ([]*os.File, error) {
	files, ferr := parseRights(oob)
	switch {
	case ferr != nil:
		closeAll(files)
		return nil, ferr
	case len(b) == 0 && len(oob) == 0:
		return nil, io.EOF
	case flags&(unix.MSG_TRUNC|unix.MSG_CTRUNC) != 0:
		closeAll(files)
		return nil, errors.New("message truncated")
	}
	if err := json.Unmarshal(b, v); err != nil {
		closeAll(files)
		return nil, fmt.Errorf("bad message: %w", err)
	}
	return files, nil
}

func parseRights(oob []byte) ([]*os.File, error) {
	if len(oob) == 0 {
		return nil, nil
	}
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return nil, err
	}
	var files []*os.File
	for i := range msgs {
		fds, err := unix.ParseUnixRights(&msgs[i])
		if err != nil {
			return files, err
		}
		for _, fd := range fds {
			unix.CloseOnExec(fd)
			files = append(files, os.NewFile(uintptr(fd), "passed"))
		}
	}
	return files, nil
}

func closeAll(files []*os.File) {
	for _, f := range files {
		if f != nil {
			_ = f.Close()
		}
	}
}

// specFile is an encoded spec in a memfd, read from offset 0.
func specFile(b []byte) (*os.File, error) {
	fd, err := unix.MemfdCreate("riot-sandbox-spec", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), "riot-sandbox-spec")
	if _, err := f.Write(b); err != nil {
		_ = f.Close()
		return nil, err
	}
	return f, nil
}

func readSpec(f *os.File) (spec, error) {
	var s spec
	b, err := io.ReadAll(io.NewSectionReader(f, 0, 64<<20))
	if err != nil {
		return s, err
	}
	return s, json.Unmarshal(b, &s)
}
