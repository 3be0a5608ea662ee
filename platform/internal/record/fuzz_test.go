package record_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/tickframe/tickframe/platform/internal/record"
)

// fuzzSeeds adds valid files and cuts of them.
func fuzzSeeds(f *testing.F) {
	ext := extremeLog()
	ext.Params = ext.Params[:100]
	for _, l := range []*record.Log{sampleLog(0), sampleLog(1), sampleLog(4), sampleLog(40), ext} {
		b := encode(f, l)
		f.Add(b)
		for n := 0; n < len(b); n += 1 + len(b)/24 {
			f.Add(b[:n])
		}
	}
}

// checkRead is the fuzz property: Read never panics; when it fails, it
// says where, within the data, in one line; when it succeeds, the log is
// valid and Write gives back exactly the data, which reads the same again.
func checkRead(t *testing.T, data []byte) {
	l, err := record.Read(bytes.NewReader(data))
	if err != nil {
		var fe *record.FormatError
		if !errors.As(err, &fe) {
			t.Fatalf("error %v (%T) is not a *FormatError", err, err)
		}
		if fe.Offset < 0 || fe.Offset > int64(len(data)) {
			t.Fatalf("error %v: offset outside the %d bytes", err, len(data))
		}
		if msg := err.Error(); !strings.HasPrefix(msg, "record: offset ") || strings.ContainsAny(msg, "\r\n") {
			t.Fatalf("error %q is not one line of the form record: offset N: …", msg)
		}
		return
	}
	if err := l.Validate(); err != nil {
		t.Fatalf("Read returned an invalid log: %v", err)
	}
	var buf bytes.Buffer
	if err := record.Write(&buf, l); err != nil {
		t.Fatalf("Write of what Read returned: %v", err)
	}
	if !bytes.Equal(buf.Bytes(), data) {
		t.Fatalf("Write(Read(data)) differs from data:\n% x\n% x", buf.Bytes(), data)
	}
	again, err := record.Read(&buf)
	if err != nil {
		t.Fatalf("Read(Write(Read(data))): %v", err)
	}
	if !equalLogs(again, l) {
		t.Fatalf("Read(Write(l)) = %+v, want %+v", again, l)
	}
}

// FuzzRead feeds Read arbitrary bytes.
func FuzzRead(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(checkRead)
}

// FuzzChecksummed feeds Read arbitrary bytes whose last four are made
// the checksum of the rest, so that the fuzzer gets past the checksum to the
// validation behind it, which random bytes almost never reach.
func FuzzChecksummed(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) >= 4 {
			fixCRC(data)
		}
		checkRead(t, data)
	})
}
