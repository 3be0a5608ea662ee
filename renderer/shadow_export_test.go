package renderer

// SetShadowOffsets turns the shadow map's normal and depth offsets off (or
// back on), as a renderer without a depth bias would draw, so that the
// read-back tests prove that they catch shadow acne.
func (r *Renderer) SetShadowOffsets(on bool) { r.shadow.noOffsets = !on }
