package renderer

// Views of the renderer's text for the tests in package renderer_test.

// HUDTextLayout reports the HUD's text size and its panel's padding, in
// pixels, in a window height pixels high at content scale scale.
func HUDTextLayout(height, scale int) (px, pad int) {
	px = hudTextPx(height, scale)
	return px, hudPadPx(px)
}

// Paints reports how many times the HUD has laid out and painted its
// panel and text.
func (h *HUD) Paints() int { return h.paints }

// Layouts reports how many times the HUD has laid its text out.
func (h *HUD) Layouts() int { return h.layouts }

// Rows reports how many rows of text the HUD's last layout holds, and
// whether it has a graph.
func (h *HUD) Rows() (rows int, graph bool) { return h.layout.rows, h.layout.graphW > 0 }

// HUDMoreRow returns the row that ends a HUD cut short by a small window,
// for n lines left out.
func HUDMoreRow(n int) string {
	var h HUD
	h.setMore(n)
	return string(h.more)
}
