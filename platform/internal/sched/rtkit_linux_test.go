//go:build cgo

package sched

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tickframe/tickframe/platform/internal/sched/internal/cthread"
	"golang.org/x/sys/unix"
)

func TestMain(m *testing.M) {
	if os.Getenv(brokerChildEnv) != "" {
		brokerChild()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// brokerChildEnv, set, makes the test binary the unprivileged program
// of TestBrokerRaisesAnOrdinaryUser instead of running tests.
const brokerChildEnv = "TICKFRAME_SCHED_BROKER_CHILD"

// brokerReport is what the child got, as it read it back.
type brokerReport struct {
	PID            int            `json:"pid"`
	UID            int            `json:"uid"`
	Sim            ThreadPriority `json:"sim"`
	Render         ThreadPriority `json:"render"`
	RTTime         [2]uint64      `json:"rttime"` // RLIMIT_RTTIME soft, hard (µs)
	Demoted        ThreadPriority `json:"demoted"`
	DemotedPolicy  uint32         `json:"demoted_policy"`
	SpinMS         float64        `json:"spin_ms"`
	DemotedAfterMS float64        `json:"demoted_after_ms"` // from the spin's start
	RTTimeAfter    [2]uint64      `json:"rttime_after"`     // RLIMIT_RTTIME after the demotion
	ResetOnForkSim bool           `json:"reset_on_fork_sim"`
	// Sleeper is a second brokered real-time thread, asleep while the
	// first runs away, and its policy after.
	Sleeper       ThreadPriority `json:"sleeper"`
	SleeperPolicy uint32         `json:"sleeper_policy"`
}

// brokerChild runs as an ordinary user beside RealtimeKit: it asks for a
// real-time simulation thread and a raised render thread, as the app
// does, tells the test their thread ids (so it can read the kernel's
// view from outside), waits for its go, then makes the real-time thread
// run away (spin past RLIMIT_RTTIME's soft limit without blocking) and
// reports what the SIGXCPU guard did.
func brokerChild() {
	out := bufio.NewWriter(os.Stdout)
	in := bufio.NewReader(os.Stdin)
	rep := brokerReport{PID: os.Getpid(), UID: os.Getuid()}
	simTP, renderTP := make(chan ThreadPriority), make(chan ThreadPriority)
	spin, spun := make(chan struct{}), make(chan float64)
	// read is closed once the report is read: the threads stay registered
	// until then, however late a loaded machine runs this goroutine.
	read := make(chan struct{})
	var spinStart time.Time
	go func() {
		tp, unregister := Critical("sim", Config{BrokerRT: 10})
		defer unregister()
		simTP <- tp
		<-spin
		// Run away in C (a sleep resets the kernel's count): no blocking
		// system call, past the soft limit (an eighth of RTTimeUSecMax),
		// until SIGXCPU's handler makes the thread ordinary, or short of
		// the hard limit, where the kernel would kill the process. It
		// leaves C every millisecond to read its policy.
		start := time.Now()
		spinStart = start
		limit := time.Duration(rep.RTTime[1]) * time.Microsecond * 19 / 20
		for time.Since(start) < limit {
			cthread.Spin(time.Millisecond)
			if attr, err := unix.SchedGetAttr(0, 0); err == nil && attr.Policy == unix.SCHED_NORMAL {
				break
			}
		}
		spun <- float64(time.Since(start)) / 1e6
		<-read // the watcher's record is read before unregistering
	}()
	go func() {
		tp, unregister := Critical("render", Config{CriticalNice: -5, BrokerRT: -1})
		defer unregister()
		renderTP <- tp
		<-spin
	}()
	sleeperTP := make(chan ThreadPriority)
	go func() {
		tp, unregister := Critical("sleeper", Config{CriticalNice: 1, BrokerRT: 5})
		defer unregister()
		sleeperTP <- tp
		<-read // asleep through the runaway and its demotion
	}()
	rep.Sim, rep.Render = <-simTP, <-renderTP
	sleeper := <-sleeperTP
	var lim unix.Rlimit
	_ = unix.Getrlimit(unix.RLIMIT_RTTIME, &lim)
	rep.RTTime = [2]uint64{lim.Cur, lim.Max}
	if attr, err := unix.SchedGetAttr(rep.Sim.TID, 0); err == nil {
		rep.ResetOnForkSim = attr.Flags&unix.SCHED_FLAG_RESET_ON_FORK != 0
	}
	fmt.Fprintf(out, "tids %d %d %d\n", rep.PID, rep.Sim.TID, rep.Render.TID)
	out.Flush()
	if _, err := in.ReadString('\n'); err != nil {
		os.Exit(3)
	}
	if rep.Sim.RT == "rtkit" || rep.Sim.RT == "portal" {
		// The demotion needs no goroutine: with the guard's Go side held
		// (as a loaded machine, which kept an os/signal watcher off a CPU
		// for 170 ms, would hold it) through the spin, the handler still
		// makes the thread ordinary, at the soft limit.
		xcpu.Lock()
		close(spin)
		rep.SpinMS = <-spun
		xcpu.Unlock()
		for end := time.Now().Add(5 * time.Second); time.Now().Before(end) && Criticals()["sim"].RT != "demoted"; {
			time.Sleep(time.Millisecond)
		}
		xcpu.Lock()
		if !xcpu.demotedAt.IsZero() {
			rep.DemotedAfterMS = float64(xcpu.demotedAt.Sub(spinStart)) / 1e6
		}
		xcpu.Unlock()
		var lim unix.Rlimit
		_ = unix.Getrlimit(unix.RLIMIT_RTTIME, &lim)
		rep.RTTimeAfter = [2]uint64{lim.Cur, lim.Max}
		rep.Sleeper = Criticals()["sleeper"]
		if attr, err := unix.SchedGetAttr(sleeper.TID, 0); err == nil {
			rep.SleeperPolicy = attr.Policy
		}
		if attr, err := unix.SchedGetAttr(rep.Sim.TID, 0); err == nil {
			rep.DemotedPolicy = attr.Policy
		}
		rep.Demoted = Criticals()["sim"]
	}
	close(read)
	b, _ := json.Marshal(rep)
	fmt.Fprintf(out, "report %s\n", b)
	out.Flush()
}

// schedOf reads a thread's policy and kernel priority from
// /proc/PID/task/TID/sched, the kernel's own account, outside the
// process that asked.
func schedOf(pid, tid int) (policy, prio int, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/sched", pid, tid))
	if err != nil {
		return 0, 0, err
	}
	policy, prio = -1, -1
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			continue
		}
		switch strings.TrimSpace(k) {
		case "policy":
			policy = n
		case "prio":
			prio = n
		}
	}
	if policy < 0 || prio < 0 {
		return 0, 0, fmt.Errorf("no policy or prio in %s", b)
	}
	return policy, prio, nil
}

// runBrokerChild runs this test binary as user name (no capabilities, no
// supplementary groups) under .ci/rtkit-env, which authorises only
// authorised for RealtimeKit and, with portal, starts the user's session
// bus and the xdg desktop portal; check reads the kernel's view of its
// threads before it runs away; the child's report comes back.
func runBrokerChild(t *testing.T, name, authorised string, portal bool, check func(pid, sim, render int)) brokerReport {
	t.Helper()
	u, err := user.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	// The test binary sits in a directory only root may enter: copy it
	// where the user can run it.
	dir, err := os.MkdirTemp("", "sched-broker")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "sched.test")
	src, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, src, 0o755); err != nil {
		t.Fatal(err)
	}
	env, err := filepath.Abs("../../../.ci/rtkit-env")
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"-u", authorised}
	if portal {
		args = append(args, "-portal")
	}
	args = append(args, "setpriv", "--reuid="+u.Uid, "--regid="+u.Gid, "--clear-groups", "--inh-caps=-all", bin, "-test.run=^$")
	cmd := exec.Command(env, args...)
	// No session bus but the one rtkit-env starts with -portal.
	cmd.Env = append(os.Environ(), brokerChildEnv+"=1", "RTKIT_ENV_VERBOSE=1", "DBUS_SESSION_BUS_ADDRESS=", "XDG_RUNTIME_DIR=")
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	}()
	r := bufio.NewReader(stdout)
	line, err := r.ReadString('\n')
	if err != nil {
		cmd.Wait()
		t.Fatalf("child as %s: %v; stderr:\n%s", name, err, stderr.String())
	}
	var pid, sim, render int
	if _, err := fmt.Sscanf(line, "tids %d %d %d", &pid, &sim, &render); err != nil {
		t.Fatalf("child as %s said %q", name, line)
	}
	check(pid, sim, render)
	io.WriteString(stdin, "go\n")
	line, err = r.ReadString('\n')
	werr := cmd.Wait()
	if err != nil || werr != nil {
		t.Fatalf("child as %s: %v, %v (a real-time thread past the hard RLIMIT_RTTIME is killed: SIGKILL means no demotion); stderr:\n%s", name, err, werr, stderr.String())
	}
	var rep brokerReport
	if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "report ")), &rep); err != nil {
		t.Fatalf("child's report %q: %v", line, err)
	}
	if rep.UID != mustAtoi(t, u.Uid) {
		t.Fatalf("the child ran as uid %d, not %s's %s", rep.UID, name, u.Uid)
	}
	return rep
}

func mustAtoi(t *testing.T, s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// An ordinary user (nobody: no CAP_SYS_NICE, RLIMIT_RTPRIO and
// RLIMIT_NICE 0) whom polkit authorises gets from the real RealtimeKit
// (Debian's rtkit-daemon, on a system bus of the test's own), asked
// directly or through the xdg desktop portal (Debian's
// xdg-desktop-portal, on the user's session bus), real-time scheduling
// for the simulation thread and nice −5 for the render thread, as the
// kernel shows from outside (/proc/PID/task/TID/sched); a user it does
// not authorise is denied and told why. A brokered real-time thread that
// runs away gets SIGXCPU and is made ordinary, before the hard limit
// would kill the process.
func TestBrokerRaisesAnOrdinaryUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Fatal("needs root, to start a system bus, polkitd and rtkit-daemon of its own (make test runs as root)")
	}
	for _, f := range []string{"/usr/libexec/rtkit-daemon", "/usr/lib/polkit-1/polkitd", "/usr/bin/dbus-daemon", "/usr/libexec/xdg-desktop-portal"} {
		if _, err := os.Stat(f); err != nil {
			t.Fatalf("%v: run .ci/deps.sh (Debian's rtkit, polkitd, dbus, xdg-desktop-portal)", err)
		}
	}
	for _, broker := range []string{"rtkit", "portal"} {
		rep := runBrokerChild(t, "nobody", "nobody", broker == "portal", func(pid, sim, render int) {
			if policy, prio, err := schedOf(pid, sim); err != nil || policy != unix.SCHED_RR || prio != 99-10 {
				t.Errorf("%s: simulation thread as the kernel shows it: policy %d prio %d (%v), want SCHED_RR (2) at kernel prio 89 (real-time 10)", broker, policy, prio, err)
			}
			if policy, prio, err := schedOf(pid, render); err != nil || policy != unix.SCHED_NORMAL || prio != 120-5 {
				t.Errorf("%s: render thread as the kernel shows it: policy %d prio %d (%v), want SCHED_NORMAL at kernel prio 115 (nice −5)", broker, policy, prio, err)
			}
		})
		t.Logf("%s, authorised: sim %+v; render %+v; RLIMIT_RTTIME %v µs; spun %.0f ms, demoted %.0f ms after the spin began: %+v", broker, rep.Sim, rep.Render, rep.RTTime, rep.SpinMS, rep.DemotedAfterMS, rep.Demoted)
		if rep.Sim.RT != broker || rep.Sim.RTPriority != 10 {
			t.Errorf("simulation thread %+v, want real-time 10 from %s", rep.Sim, broker)
		}
		if rep.Sim.How != broker || rep.Sim.Nice != -10 {
			t.Errorf("simulation thread %+v, want nice −10 from %s", rep.Sim, broker)
		}
		if rep.Render.How != broker || rep.Render.Nice != -5 || rep.Render.RT != "" || rep.Render.RTPriority != 0 {
			t.Errorf("render thread %+v, want nice −5 from %s and no real-time asked", rep.Render, broker)
		}
		if broker == "rtkit" && !strings.Contains(rep.Sim.BrokerErr, "portal: no session bus") {
			t.Errorf("broker errors %q: the portal (none here) was not asked first", rep.Sim.BrokerErr)
		}
		if !rep.ResetOnForkSim {
			t.Error("the real-time thread lacks SCHED_RESET_ON_FORK")
		}
		if rep.RTTime[1] == 0 || rep.RTTime[1] > 200000 || rep.RTTime[0] != rep.RTTime[1]/rttimeSoft {
			t.Errorf("RLIMIT_RTTIME %v µs, want a hard limit within rtkit's RTTimeUSecMax (200000) and the soft one at an eighth", rep.RTTime)
		}
		if rep.Demoted.RT != "demoted" || rep.DemotedPolicy != unix.SCHED_NORMAL || !strings.Contains(rep.Demoted.RTErr, "SIGXCPU") {
			t.Errorf("after running away for %.0f ms: %+v, policy %d; want made ordinary on SIGXCPU", rep.SpinMS, rep.Demoted, rep.DemotedPolicy)
		}
		// The runaway ends once it is ordinary, short of the hard limit.
		if rep.DemotedAfterMS >= rep.SpinMS {
			t.Errorf("demoted %.0f ms after the spin began, not before it ended (%.0f ms): the process would have been killed at the hard limit", rep.DemotedAfterMS, rep.SpinMS)
		}
		if rep.Sleeper.RT != broker || rep.Sleeper.RTPriority != 5 || rep.SleeperPolicy != unix.SCHED_RR {
			t.Errorf("the brokered thread asleep during the runaway: %+v, policy %d; want it left at real-time 5", rep.Sleeper, rep.SleeperPolicy)
		}
		if rep.RTTimeAfter != rep.RTTime {
			t.Errorf("RLIMIT_RTTIME after the demotion %v µs, want %v back (the kernel raises the soft limit with each SIGXCPU)", rep.RTTimeAfter, rep.RTTime)
		}
	}

	// A user polkit does not authorise (the rule names nobody alone).
	other := runBrokerChild(t, "daemon", "nobody", false, func(pid, sim, render int) {
		if policy, _, err := schedOf(pid, sim); err != nil || policy != unix.SCHED_NORMAL {
			t.Errorf("unauthorised simulation thread: policy %d (%v), want SCHED_NORMAL", policy, err)
		}
	})
	t.Logf("unauthorised: sim %+v", other.Sim)
	if other.Sim.How != "denied" || other.Sim.RT != "denied" || !strings.Contains(other.Sim.BrokerErr, "rtkit: ") {
		t.Errorf("unauthorised user: %+v, want denied with rtkit's answer", other.Sim)
	}
}

// A raise denied with no broker reachable says why each was not asked.
func TestBrokerAbsent(t *testing.T) {
	t.Setenv("DBUS_SYSTEM_BUS_ADDRESS", "unix:path=/nonexistent/system_bus_socket")
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("XDG_RUNTIME_DIR", "")
	got := make(chan ThreadPriority)
	go func() {
		runtime.LockOSThread() // loses a capability: dies with the goroutine
		dropCapSysNice(t)
		tp, unregister := Critical("absent", Config{CriticalNice: -5, CriticalSlice: -1})
		unregister()
		got <- tp
	}()
	tp := <-got
	if tp.How != "denied" || !strings.Contains(tp.BrokerErr, "portal: no session bus") || !strings.Contains(tp.BrokerErr, "rtkit: ") {
		t.Fatalf("%+v, want denied, and why neither broker granted it", tp)
	}
}

// What is asked of a broker for real time, by configuration and what the
// kernel said.
func TestBrokerRTPriority(t *testing.T) {
	for _, c := range []struct {
		name string
		tp   ThreadPriority
		cfg  Config
		want int
	}{
		{"nothing asked", ThreadPriority{}, Config{}, 0},
		{"kernel denied CriticalRT", ThreadPriority{RT: "denied"}, Config{CriticalRT: 7}, 7},
		{"kernel granted", ThreadPriority{RT: "set", RTPriority: 7}, Config{CriticalRT: 7}, 0},
		{"BrokerRT alone", ThreadPriority{}, Config{BrokerRT: 10}, 10},
		{"BrokerRT over CriticalRT", ThreadPriority{RT: "denied"}, Config{CriticalRT: 7, BrokerRT: 3}, 3},
		{"none for this thread", ThreadPriority{RT: "denied"}, Config{CriticalRT: 7, BrokerRT: -1}, 0},
		{"brokers off", ThreadPriority{RT: "denied"}, Config{CriticalRT: 7, Broker: -1}, 0},
	} {
		if got := brokerRTPriority(&c.tp, c.cfg); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
}

// A bus that never answers costs one critical thread brokerTimeout, and
// the next nothing: the broker is not asked again for a while.
func TestBrokerSilentBus(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(dir, "bus")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	defer func() {
		l.Close()
		<-done
	}()
	go func() {
		defer close(done)
		var held []net.Conn // never answered
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	t.Setenv("DBUS_SYSTEM_BUS_ADDRESS", "unix:path="+sock)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("XDG_RUNTIME_DIR", "")
	silent.Lock()
	delete(silent.until, "rtkit")
	silent.Unlock()
	defer func() {
		silent.Lock()
		delete(silent.until, "rtkit")
		silent.Unlock()
	}()
	ask := func() (ThreadPriority, time.Duration) {
		got := make(chan ThreadPriority)
		start := time.Now()
		go func() {
			runtime.LockOSThread() // loses a capability: dies with the goroutine
			dropCapSysNice(t)
			tp, unregister := Critical("silent", Config{CriticalNice: -5, CriticalSlice: -1})
			unregister()
			got <- tp
		}()
		return <-got, time.Since(start)
	}
	first, took := ask()
	t.Logf("first: %v, %+v", took, first)
	// Liveness, not speed: a broker call without a bound would hang.
	if first.How != "denied" || !strings.Contains(first.BrokerErr, "rtkit: no answer in") || took > 10*time.Second {
		t.Errorf("first thread after %v: %+v, want denied, rtkit's silence named", took, first)
	}
	second, took := ask()
	t.Logf("second: %v, %+v", took, second)
	if second.How != "denied" || !strings.Contains(second.BrokerErr, "rtkit: timed out lately") || took > brokerTimeout {
		t.Errorf("second thread after %v: %+v, want denied at once, rtkit not asked", took, second)
	}
}
