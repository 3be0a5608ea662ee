package record_test

import (
	"bytes"
	"io"
	"strconv"
	"testing"

	"github.com/tickframe/tickframe/platform/internal/record"
)

func BenchmarkWrite(b *testing.B) {
	for _, n := range []int{0, 10000} {
		l := sampleLog(n)
		b.Run("inputs="+strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(encode(b, l))))
			for b.Loop() {
				if err := record.Write(io.Discard, l); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkRead(b *testing.B) {
	for _, n := range []int{0, 10000} {
		data := encode(b, sampleLog(n))
		b.Run("inputs="+strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := record.Read(bytes.NewReader(data)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
