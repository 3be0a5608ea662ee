package renderer

// SetSkinDrawNewer makes the skin pass draw every joint at the newer
// snapshot's pose, as a renderer that did not interpolate would: the
// read-back tests prove that they catch it.
func (r *Renderer) SetSkinDrawNewer(on bool) { r.skins.drawNewer = on }
