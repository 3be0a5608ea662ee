package record_test

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/tickframe/tickframe/platform/internal/record"
)

// TestFormatDocAgrees reads the fixed part of docs/recording.md's layout
// (the rows whose offset is a number) and checks each field's bytes in a
// file Write wrote: the contract and the code say the same.
func TestFormatDocAgrees(t *testing.T) {
	doc, err := os.ReadFile("../../../docs/recording.md")
	if err != nil {
		t.Fatal(err)
	}
	l := &record.Log{Header: record.Header{World: "w", Seed: 0x0102030405060708, Bodies: 77, Rate: 120, CheckpointEvery: 9}}
	var file bytes.Buffer
	if err := record.Write(&file, l); err != nil {
		t.Fatal(err)
	}
	b := file.Bytes()
	want := map[string]uint64{ // a field's first word in the doc -> its value
		"magic,": 0, "format": record.Version, "Seed": l.Seed, "Bodies,": uint64(l.Bodies),
		"Rate": uint64(l.Rate), "CheckpointEvery,": l.CheckpointEvery, "w,": uint64(len(l.World)),
	}
	rows := 0
	sc := bufio.NewScanner(bytes.NewReader(doc))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 3 {
			continue
		}
		off, err1 := strconv.Atoi(f[0])
		size, err2 := strconv.Atoi(f[1])
		v, known := want[f[2]]
		if err1 != nil || err2 != nil || !known {
			continue
		}
		rows++
		if off+size > len(b) {
			t.Fatalf("doc row %q lies past the file's %d bytes", sc.Text(), len(b))
		}
		field := b[off : off+size]
		if f[2] == "magic," {
			if string(field) != record.Magic {
				t.Errorf("doc row %q: file holds %q", sc.Text(), field)
			}
			continue
		}
		var got uint64
		for i := size - 1; i >= 0; i-- {
			got = got<<8 | uint64(field[i])
		}
		if got != v {
			t.Errorf("doc row %q: the file holds %d there, want %d", sc.Text(), got, v)
		}
	}
	if rows != len(want) {
		t.Errorf("found %d of the %d fixed fields in docs/recording.md", rows, len(want))
	}
}
