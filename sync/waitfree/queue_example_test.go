package waitfree_test

import (
	"fmt"

	"github.com/tickframe/tickframe/sync/waitfree"
)

// A full queue refuses a value instead of making the producer wait, and
// counts the refusal: the render thread sending input never blocks on the
// simulation.
func ExampleNewQueue() {
	q, err := waitfree.NewQueue[string](3) // rounded up to 4
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, key := range []string{"W", "A", "S", "D", "Space"} {
		if !q.Push(key) {
			fmt.Println("refused:", key)
		}
	}
	fmt.Println("cap", q.Cap(), "len", q.Len(), "dropped", q.Dropped())
	var got []string
	for {
		key, ok := q.Pop()
		if !ok {
			break
		}
		got = append(got, key)
	}
	fmt.Println("popped", got)
	// Output:
	// refused: Space
	// cap 4 len 4 dropped 1
	// popped [W A S D]
}
