package sched

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/godbus/dbus/v5"
	"golang.org/x/sys/unix"
)

// A broker raises a thread for a process that may not raise it itself:
// the xdg desktop portal's Realtime interface on the session bus (it
// forwards to RealtimeKit, translating a sandbox's process ids), then
// RealtimeKit on the system bus. Both answer the same four members.
type brokerService struct {
	name    string // as ThreadPriority reports it
	address func() (string, error)
	dest    string
	path    dbus.ObjectPath
	iface   string
}

var brokers = []brokerService{
	{"portal", sessionBus, "org.freedesktop.portal.Desktop", "/org/freedesktop/portal/desktop", "org.freedesktop.portal.Realtime"},
	{"rtkit", systemBus, "org.freedesktop.RealtimeKit1", "/org/freedesktop/RealtimeKit1", "org.freedesktop.RealtimeKit1"},
}

// brokerTimeout bounds one broker's answer: RealtimeKit asks polkit, and
// the bus may first start it (D-Bus activation), each in tens of
// milliseconds to a few hundred. A broker that let it pass is not asked
// again for brokerQuiet: every critical thread would wait as long.
const (
	brokerTimeout = 2 * time.Second
	brokerQuiet   = time.Minute
)

// silent holds, by broker, until when it is not asked.
var silent struct {
	sync.Mutex
	until map[string]time.Time
}

// ask connects to svc, runs fn on the connection and closes it; a broker
// that timed out is skipped for brokerQuiet.
func ask(svc brokerService, fn func(*brokerConn) error) error {
	silent.Lock()
	quiet := time.Now().Before(silent.until[svc.name])
	silent.Unlock()
	if quiet {
		return errors.New("timed out lately, not asked")
	}
	ctx, cancel := context.WithTimeout(context.Background(), brokerTimeout)
	defer cancel()
	b, err := dialBroker(ctx, svc)
	if err == nil {
		err = fn(b)
		b.close()
	}
	if ctx.Err() != nil {
		silent.Lock()
		if silent.until == nil {
			silent.until = map[string]time.Time{}
		}
		silent.until[svc.name] = time.Now().Add(brokerQuiet)
		silent.Unlock()
		return fmt.Errorf("no answer in %v", brokerTimeout)
	}
	return err
}

// sessionBus is the session bus's address, never one started for the
// asking (godbus would run dbus-launch when none is set).
func sessionBus() (string, error) {
	if a := os.Getenv("DBUS_SESSION_BUS_ADDRESS"); a != "" {
		return a, nil
	}
	if dir := os.Getenv("XDG_RUNTIME_DIR"); dir != "" {
		p := filepath.Join(dir, "bus")
		if fi, err := os.Stat(p); err == nil && fi.Mode()&os.ModeSocket != 0 {
			return "unix:path=" + p, nil
		}
	}
	return "", errors.New("no session bus")
}

// systemBus is the system bus's address.
func systemBus() (string, error) {
	if a := os.Getenv("DBUS_SYSTEM_BUS_ADDRESS"); a != "" {
		return a, nil
	}
	const p = "/var/run/dbus/system_bus_socket"
	if _, err := os.Stat(p); err != nil {
		return "", errors.New("no system bus")
	}
	return "unix:path=" + p, nil
}

// brokerLimits are a broker's limits, read from its properties.
type brokerLimits struct {
	maxRT, minNice int
	rttimeMax      int64 // µs
}

// brokerConn is one connection to one broker.
type brokerConn struct {
	svc  brokerService
	conn *dbus.Conn
	obj  dbus.BusObject
	ctx  context.Context
}

func dialBroker(ctx context.Context, svc brokerService) (*brokerConn, error) {
	addr, err := svc.address()
	if err != nil {
		return nil, err
	}
	conn, err := dbus.Connect(addr, dbus.WithContext(ctx))
	if err != nil {
		return nil, err
	}
	return &brokerConn{svc: svc, conn: conn, obj: conn.Object(svc.dest, svc.path), ctx: ctx}, nil
}

func (b *brokerConn) close() { _ = b.conn.Close() }

func (b *brokerConn) property(name string) (int64, error) {
	var v dbus.Variant
	if err := b.obj.CallWithContext(b.ctx, "org.freedesktop.DBus.Properties.Get", 0, b.svc.iface, name).Store(&v); err != nil {
		return 0, err
	}
	switch x := v.Value().(type) {
	case int32:
		return int64(x), nil
	case int64:
		return x, nil
	case uint32:
		return int64(x), nil
	case uint64:
		return int64(x), nil
	}
	return 0, fmt.Errorf("%s is a %s", name, v.Signature())
}

func (b *brokerConn) limits() (brokerLimits, error) {
	var l brokerLimits
	maxRT, err := b.property("MaxRealtimePriority")
	if err != nil {
		return l, err
	}
	minNice, err := b.property("MinNiceLevel")
	if err != nil {
		return l, err
	}
	rttime, err := b.property("RTTimeUSecMax")
	if err != nil {
		return l, err
	}
	return brokerLimits{int(maxRT), int(minNice), rttime}, nil
}

// askNice asks the broker for nice n on thread tid of this process.
func (b *brokerConn) askNice(tid, n int) error {
	return b.obj.CallWithContext(b.ctx, b.svc.iface+".MakeThreadHighPriorityWithPID", 0,
		uint64(os.Getpid()), uint64(tid), int32(n)).Err
}

// askRT asks the broker for SCHED_RR at prio on thread tid.
func (b *brokerConn) askRT(tid, prio int) error {
	return b.obj.CallWithContext(b.ctx, b.svc.iface+".MakeThreadRealtimeWithPID", 0,
		uint64(os.Getpid()), uint64(tid), uint32(prio)).Err
}

// shortError is a D-Bus error's name and first line of message.
func shortError(err error) string {
	var de dbus.Error
	if errors.As(err, &de) {
		msg := de.Name
		if len(de.Body) > 0 {
			if s, ok := de.Body[0].(string); ok && s != "" {
				msg += ": " + strings.SplitN(s, "\n", 2)[0]
			}
		}
		return msg
	}
	return err.Error()
}

// brokerNice asks the brokers for CriticalNice (no lower than a broker's
// MinNiceLevel) on thread tp.TID when the kernel denied it, and reads the
// nice value back: tp.How becomes the broker's name only if the kernel
// shows it granted. The broker also sets SCHED_RESET_ON_FORK on the
// thread (RealtimeKit always does): threads it starts afterwards begin at
// nice 0.
func brokerNice(tp *ThreadPriority, cfg Config) {
	if cfg.Broker < 0 || tp.How != "denied" {
		return
	}
	var errs []string
	for _, svc := range brokers {
		err := ask(svc, func(b *brokerConn) error {
			l, err := b.limits()
			if err != nil {
				return err
			}
			n := max(cfg.CriticalNice, l.minNice)
			if err := b.askNice(tp.TID, n); err != nil {
				return err
			}
			got, err := nice(tp.TID)
			if err != nil {
				return err
			}
			if got != n {
				return fmt.Errorf("answered yes, yet the kernel reads nice %d, not %d", got, n)
			}
			tp.How, tp.Nice = svc.name, got
			return nil
		})
		if err == nil {
			tp.BrokerErr = ""
			return
		}
		errs = append(errs, svc.name+": "+shortError(err))
	}
	tp.BrokerErr = strings.Join(errs, "; ")
}

// brokerRTPriority is the real-time priority to ask a broker for, 0 for
// none: cfg.BrokerRT, or (0) CriticalRT when the kernel denied it.
func brokerRTPriority(tp *ThreadPriority, cfg Config) int {
	switch {
	case cfg.Broker < 0 || cfg.BrokerRT < 0 || tp.RTPriority > 0:
		return 0
	case cfg.BrokerRT > 0:
		return cfg.BrokerRT
	case tp.RT == "denied":
		return cfg.CriticalRT
	}
	return 0
}

// brokerRT asks the brokers for real-time scheduling (SCHED_RR, no higher
// than a broker's MaxRealtimePriority) on thread tp.TID, after doing what
// RealtimeKit requires: RLIMIT_RTTIME within its RTTimeUSecMax (the
// process's: every real-time thread of it, a C library's too, gets
// SIGXCPU past half of it without blocking and is killed past all of it),
// and SCHED_RESET_ON_FORK on the thread. It reads the policy back: tp.RT
// becomes the broker's name only if the kernel shows it granted. While
// the thread is registered, a SIGXCPU demotes it (xcpu).
func brokerRT(tp *ThreadPriority, cfg Config) {
	prio := brokerRTPriority(tp, cfg)
	if prio <= 0 {
		return
	}
	var errs []string
	if tp.BrokerErr != "" {
		errs = append(errs, tp.BrokerErr)
	}
	add := func(e string) {
		// The nice request's reasons, where the same, are not repeated.
		if !strings.Contains(tp.BrokerErr, e) {
			errs = append(errs, e)
		}
	}
	for _, svc := range brokers {
		err := ask(svc, func(b *brokerConn) error {
			l, err := b.limits()
			if err != nil {
				return err
			}
			p := min(prio, l.maxRT)
			if p < 1 {
				return fmt.Errorf("MaxRealtimePriority %d", l.maxRT)
			}
			if err := limitRTTime(l.rttimeMax); err != nil {
				return err
			}
			if err := resetOnFork(tp.TID); err != nil {
				return err
			}
			if err := b.askRT(tp.TID, p); err != nil {
				return err
			}
			got, err := unix.SchedGetAttr(tp.TID, 0)
			if err != nil {
				return err
			}
			if got.Policy != unix.SCHED_RR && got.Policy != unix.SCHED_FIFO || int(got.Priority) != p {
				return fmt.Errorf("answered yes, yet the kernel reads policy %d priority %d", got.Policy, got.Priority)
			}
			tp.RT, tp.RTPriority = svc.name, p
			return nil
		})
		if err == nil {
			tp.BrokerErr = strings.Join(errs, "; ")
			return
		}
		add(svc.name + ": " + shortError(err))
	}
	if tp.RT == "" {
		tp.RT = "denied"
	}
	if tp.RTErr == "" {
		tp.RTErr = "no broker granted it (broker_error says why)"
	}
	tp.BrokerErr = strings.Join(errs, "; ")
}

// limitRTTime lowers the process's RLIMIT_RTTIME to max µs (never
// raising it), its soft limit to an eighth of that (rttimeSoft): a runaway
// real-time thread gets SIGXCPU first, with time to be demoted before the
// kernel kills the process.
func limitRTTime(maxUS int64) error {
	if maxUS <= 0 {
		return fmt.Errorf("RTTimeUSecMax %d", maxUS)
	}
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_RTTIME, &lim); err != nil {
		return err
	}
	lim.Max = min(lim.Max, uint64(maxUS))
	lim.Cur = min(lim.Cur, lim.Max/rttimeSoft)
	if err := unix.Setrlimit(unix.RLIMIT_RTTIME, &lim); err != nil {
		return fmt.Errorf("setrlimit RLIMIT_RTTIME: %w", err)
	}
	return nil
}

// resetOnFork adds SCHED_RESET_ON_FORK to thread tid's policy, keeping
// the rest of it (nice value, slice).
func resetOnFork(tid int) error {
	attr, err := unix.SchedGetAttr(tid, 0)
	if err != nil {
		return err
	}
	attr.Flags |= unix.SCHED_FLAG_RESET_ON_FORK
	if err := unix.SchedSetAttr(tid, attr, 0); err != nil {
		return fmt.Errorf("SCHED_RESET_ON_FORK: %w", err)
	}
	return nil
}

// unguarded makes brokered thread tp ordinary again, at the nice value it
// has, as no SIGXCPU guard watches it (err says why).
func unguarded(tp *ThreadPriority, err error) {
	n, _ := nice(tp.TID)
	_ = unix.SchedSetAttr(tp.TID, &unix.SchedAttr{Policy: unix.SCHED_NORMAL, Flags: unix.SCHED_FLAG_RESET_ON_FORK, Nice: int32(n)}, 0)
	tp.RT, tp.RTPriority, tp.RTErr = "denied", 0, "no SIGXCPU guard: "+err.Error()
}

// rttimeSoft is how far below the hard RLIMIT_RTTIME the soft one is: an
// eighth (25 ms of RealtimeKit's 200), not SDL's half: the runaway is
// demoted in SIGXCPU's handler (xcpu), at once, with 175 ms left before
// the kill. 25 ms without blocking is three ticks at 120 Hz, and a step
// of 100k bodies takes 4.3: far past any tick (8.3 ms at 120 Hz) or
// audio buffer.
const rttimeSoft = 8
