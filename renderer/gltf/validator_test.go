//go:build !windows

// The Khronos glTF validator runs in node, which the Windows test binary
// cannot start under Wine (.ci/windows/test.sh); Linux and macOS run
// these tests.

package gltf_test

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// validator is the Khronos glTF validator (the npm package
// gltf-validator, installed by .ci/gltf-validator.sh) answering requests
// in a node process (.ci/gltf-validator.js).
type validator struct {
	mu     sync.Mutex
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *bytes.Buffer
}

var (
	sharedOnce sync.Once
	shared     *validator
	sharedErr  error
)

// theValidator returns the test binary's validator, starting it (and
// installing it, when the cache lacks it) on first use. Its node process
// ends when the test binary does: its input closes.
func theValidator(t testing.TB) *validator {
	t.Helper()
	sharedOnce.Do(func() { shared, sharedErr = startValidator() })
	if sharedErr != nil {
		t.Fatalf("the glTF validator: %v", sharedErr)
	}
	return shared
}

func startValidator() (*validator, error) {
	ci := filepath.Join("..", "..", ".ci")
	install := exec.Command(filepath.Join(ci, "gltf-validator.sh"))
	var installErr bytes.Buffer
	install.Stderr = &installErr
	out, err := install.Output()
	if err != nil {
		return nil, fmt.Errorf("%s: %v: %s", install, err, strings.TrimSpace(installErr.String()))
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	dir := lines[len(lines)-1]
	cmd := exec.Command("node", filepath.Join(ci, "gltf-validator.js"), dir)
	v := &validator{cmd: cmd, stderr: &bytes.Buffer{}}
	cmd.Stderr = v.stderr
	if v.in, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	v.out = bufio.NewReader(stdout)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %v", cmd, err)
	}
	return v, nil
}

// check returns the validator's verdict on data.
func (v *validator) check(t testing.TB, data []byte) verdict {
	t.Helper()
	v.mu.Lock()
	defer v.mu.Unlock()
	// One file takes the validator milliseconds; a minute is a hang.
	kill := time.AfterFunc(time.Minute, func() { v.cmd.Process.Kill() })
	defer kill.Stop()
	if _, err := io.WriteString(v.in, base64.StdEncoding.EncodeToString(data)+"\n"); err != nil {
		t.Fatalf("the glTF validator: %v: %s", err, v.stderr)
	}
	line, err := v.out.ReadBytes('\n')
	if err != nil {
		t.Fatalf("the glTF validator did not answer (%v): %s", err, v.stderr)
	}
	var vd verdict
	if err := json.Unmarshal(line, &vd); err != nil {
		t.Fatalf("the glTF validator's answer %q: %v", line, err)
	}
	return vd
}

// mutationCount is how many mutated files TestValidatorOracle judges:
// with -race on two shared cores, about 20 s.
const mutationCount = 1500

// morphMutations is how many files TestValidatorOracle mutates from the
// morph tube.
const morphMutations = 300

// TestValidatorOracle judges Decode against the Khronos glTF validator on
// the seed corpus and mutationCount files mutated from it with a fixed
// seed (the same files every run): a file the validator calls valid loads
// or is refused with a documented reason (errors.ErrUnsupported or
// gltf.ErrLimit); one it calls invalid is refused, or loads as a model
// that keeps every promise Decode makes (drawn correctly); every refusal
// is one printable line; nothing panics or hangs.
func TestValidatorOracle(t *testing.T) {
	v := theValidator(t)
	seeds := seedCorpus(t)
	mu := newMutator(1)
	var valid, invalid, invalidLoaded, validLoaded, morphLoaded int
	codes := map[string]int{} // the validator's errors in invalid files that load
	// Then the morph tube and morphMutations files mutated from it, with
	// a mutator of their own (the files before stay the same).
	morph, mmu := mustGLB(t, morphTube()), newMutator(2)
	for i := range len(seeds) + mutationCount + 1 + morphMutations {
		var data []byte
		switch k := len(seeds) + mutationCount; {
		case i < len(seeds):
			data = seeds[i]
		case i < k:
			data = mu.mutate(t, seeds[(i-len(seeds))%len(seeds)])
		case i == k:
			data = morph
		default:
			data = mmu.mutate(t, morph)
		}
		vd := v.check(t, data)
		loaded := judge(t, fmt.Sprintf("file%d.glb", i), data, vd)
		if (i < len(seeds) || i == len(seeds)+mutationCount) && (vd.Errors != 0 || !loaded) {
			t.Fatalf("seed %d: validator %+v, loaded %v: the seeds are valid models", i, vd, loaded)
		}
		if i > len(seeds)+mutationCount && loaded {
			morphLoaded++
		}
		switch {
		case vd.Errors == 0:
			valid++
			if loaded {
				validLoaded++
			}
		case loaded:
			invalid++
			invalidLoaded++
			for _, m := range vd.Messages {
				code, _, _ := strings.Cut(m, " ")
				codes[code]++
			}
		default:
			invalid++
		}
	}
	var list []string
	for c, n := range codes {
		list = append(list, fmt.Sprintf("%s %d", c, n))
	}
	slices.Sort(list)
	t.Logf("%d files: %d valid (%d loaded, the rest refused as documented), %d invalid (%d loaded and drawable: %s)",
		valid+invalid, valid, validLoaded, invalid, invalidLoaded, strings.Join(list, ", "))
	t.Logf("of the %d morph mutations, %d loaded", morphMutations, morphLoaded)
	if morphLoaded < morphMutations/10 {
		t.Fatalf("only %d of the %d morph mutations loaded: too few to judge the morph promises", morphLoaded, morphMutations)
	}
	// The mutations must reach both sides of the oracle, or it judges
	// nothing.
	if valid < mutationCount/20 || invalid < mutationCount/4 {
		t.Fatalf("the mutations made %d valid and %d invalid files: too few of one kind to judge", valid, invalid)
	}
}

// FuzzDecodeValidated is FuzzDecode with the Khronos glTF validator's
// verdict in its oracle (see TestValidatorOracle).
func FuzzDecodeValidated(f *testing.F) {
	for _, seed := range seedCorpus(f) {
		f.Add(seed)
	}
	for _, tc := range hostileCases() {
		f.Add(tc.file(f))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		judge(t, "fuzz.glb", data, theValidator(t).check(t, data))
	})
}

// TestHostileVerdicts checks that the validator calls each hostile case
// what the case says it is: the cases' claims about the specification
// come from the Khronos validator, not from Decode's reading of it.
func TestHostileVerdicts(t *testing.T) {
	v := theValidator(t)
	for _, tc := range hostileCases() {
		vd := v.check(t, tc.file(t))
		if got := vd.Errors == 0; got != tc.valid {
			t.Errorf("%s: the validator's verdict is %+v, the case says valid=%v", tc.name, vd, tc.valid)
		}
	}
}
