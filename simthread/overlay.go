package simthread

// Overlay is the text and flat 2D shapes a world draws over its scene in
// screen space (a score, labels, bars, a menu), published with its
// Snapshot as Bodies are. The renderer draws the overlay of the newest
// snapshot a frame shows, after the scene and before the template's HUD,
// whether or not the HUD is shown; items anchored to a body follow the
// body as it is drawn, interpolated.
//
// A world writes the whole overlay in every Snapshot: Reset, then the
// items in the order they are drawn (later ones on top). Its memory is
// the snapshot slot's and is reused: once every slot has held the
// longest texts and the most items, writing it allocates nothing. The
// zero Overlay is empty.
//
// Positions and sizes are in overlay units: pixels of a 1280×720 window.
// The renderer scales the overlay by the smaller of width/1280 and
// height/720, so its layout keeps its proportions in any window. Text is
// drawn in Go Regular (golang.org/x/image/font/gofont), rasterised at its
// size in whole pixels: the item's Size, its em, times that scale,
// rounded (at least 6 px), or the largest smaller size at which its
// longest line fits the window's width; an item anchored to the window
// that would cross its edge is moved inside it.
type Overlay struct {
	// Items are the items to draw, in order. Append with the methods,
	// which reuse the slot's item buffers.
	Items []OverlayItem
}

// OverlayKind is what an OverlayItem draws.
type OverlayKind uint8

const (
	// OverlayText draws Text: lines split at '\n', in Color.
	OverlayText OverlayKind = iota
	// OverlayRect fills a W×H rectangle with Color.
	OverlayRect
	// OverlayBar fills a W×H rectangle with Back, then the Fill part of
	// its width, from the left, with Color: a health or progress bar.
	OverlayBar
)

// Anchor is the point an overlay item is placed from: a point of the
// window (a corner, the middle of an edge or the centre), or a body's
// position on screen.
//
// For a window point, the item's own point of the same name (its top-left
// corner for TopLeft, its centre for Center, the middle of its bottom
// edge for Bottom) is put there, moved by the item's X, Y. For AtBody the
// item's centre is put where the body is drawn, moved by X, Y; for
// AboveBody the middle of its bottom edge is put on the top of the body
// as drawn, moved by X, Y.
type Anchor uint8

const (
	TopLeft Anchor = iota // the zero value
	Top
	TopRight
	Left
	Center
	Right
	BottomLeft
	Bottom
	BottomRight
	// AtBody places the item at body OverlayItem.Body's interpolated
	// position, projected on the screen. It is not drawn while the body
	// is behind the camera or the snapshot has no such body.
	AtBody
	// AboveBody places the item above body OverlayItem.Body: the middle
	// of its bottom edge on the top of the body's bounding sphere as
	// projected on the screen, straight above the body's centre, so a
	// label clears the body at any distance, however large it is drawn.
	// The sphere is centred on the body's interpolated position, its
	// radius the largest component of the body's Scale (a zero Scale: 1):
	// a SphereMesh body's own radius, the half-extent of a cube, the
	// bounding half-extent of every primitive mesh, which fit [−1, 1]³. It
	// is not drawn while the eye is within that radius of the body's
	// depth, or under AtBody's conditions.
	AboveBody
)

// OverlayItem is one thing an Overlay draws.
type OverlayItem struct {
	Kind   OverlayKind
	Anchor Anchor
	// Body is the index in the snapshot's Bodies of the body an AtBody
	// or AboveBody item follows.
	Body int
	// DepthTest hides the parts of an AtBody or AboveBody item that
	// nearer geometry covers, as if the item stood at the near side of
	// the body's bounding sphere (see AboveBody), facing the camera: a
	// label behind a planet is hidden with it. Depth-tested items are
	// drawn with the scene, before and so under every other item. It
	// means nothing for an item anchored to the window.
	DepthTest bool
	// X, Y move the item from its anchor, in units, right and down.
	X, Y float32
	// W, H are a rectangle's or a bar's size in units.
	W, H float32
	// Size is a text's font size (its em) in units (0: 26).
	Size float32
	// Fill is the part of a bar's width drawn in Color, in [0, 1].
	Fill float32
	// Color is the item's sRGB colour with alpha, 0xAABBGGRR as RGB and
	// RGBA make it; 0 is drawn white (opaque).
	Color uint32
	// Back is a bar's background colour (0: transparent).
	Back uint32
	// Text is a text item's bytes (ASCII; other bytes are drawn as
	// spaces). It is the slot's own buffer: append to it, as
	// strconv.AppendInt does, to write a number without allocating.
	Text []byte
}

// DefaultTextSize is the font size of a text item whose Size is 0, in
// units: 26 pixels in a 1280×720 window.
const DefaultTextSize = 26

// RGBA packs an sRGB colour with alpha (255 opaque) into an
// OverlayItem's Color layout, 0xAABBGGRR.
func RGBA(r, g, b, a uint8) uint32 {
	return uint32(a)<<24 | uint32(b)<<16 | uint32(g)<<8 | uint32(r)
}

// Reset empties the overlay, keeping its memory for the items added next.
func (o *Overlay) Reset() { o.Items = o.Items[:0] }

// Add appends it to the overlay and returns the added item, whose Text is
// the reused buffer with it.Text's bytes copied into it (it.Text itself
// is not kept). It allocates only while the overlay grows past what its
// slot held before.
func (o *Overlay) Add(it OverlayItem) *OverlayItem {
	n := len(o.Items)
	if n < cap(o.Items) {
		o.Items = o.Items[:n+1]
	} else {
		o.Items = append(o.Items, OverlayItem{})
	}
	dst := &o.Items[n]
	buf := append(dst.Text[:0], it.Text...)
	*dst = it
	dst.Text = buf
	return dst
}

// Text adds a text item: s at a font size of size units (0: 26),
// anchored at at and moved by x, y units. Append more to the returned
// item's Text (a number with strconv.AppendInt) without allocating.
func (o *Overlay) Text(at Anchor, x, y, size float32, color uint32, s string) *OverlayItem {
	it := o.Add(OverlayItem{Kind: OverlayText, Anchor: at, X: x, Y: y, Size: size, Color: color})
	it.Text = append(it.Text, s...)
	return it
}

// Label adds a text item centred on body's drawn position (AtBody), moved
// by x, y units: a name beside a small body is Label(i, 0, -40, ...). For
// a label that clears the body at any size and distance, set the
// returned item's Anchor to AboveBody; to hide it behind nearer
// geometry, its DepthTest.
func (o *Overlay) Label(body int, x, y, size float32, color uint32, s string) *OverlayItem {
	it := o.Text(AtBody, x, y, size, color, s)
	it.Body = body
	return it
}

// Rect adds a w×h rectangle filled with color.
func (o *Overlay) Rect(at Anchor, x, y, w, h float32, color uint32) *OverlayItem {
	return o.Add(OverlayItem{Kind: OverlayRect, Anchor: at, X: x, Y: y, W: w, H: h, Color: color})
}

// Bar adds a w×h bar: back across its width, then the fill part of it
// (clamped to [0, 1]) from the left in color.
func (o *Overlay) Bar(at Anchor, x, y, w, h, fill float32, color, back uint32) *OverlayItem {
	if !(fill >= 0) {
		fill = 0 // and NaN
	}
	return o.Add(OverlayItem{Kind: OverlayBar, Anchor: at, X: x, Y: y, W: w, H: h, Fill: min(fill, 1), Color: color, Back: back})
}
