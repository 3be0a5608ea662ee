package gltf

import (
	"slices"
	"strings"
)

// ignored lists what the document holds that Decode reads past (see
// Model.Ignored): each feature once, in the order of the checks below,
// then the extensions used, sorted.
func (d *decoder) ignored() []string {
	doc := &d.doc
	var out []string
	add := func(what string, present bool) {
		if present && !slices.Contains(out, what) {
			out = append(out, what)
		}
	}
	add("cameras", len(doc.Cameras) > 0)
	skinnedMesh := map[int]bool{} // meshes a node with a skin places
	for i := range doc.Nodes {
		if nd := &doc.Nodes[i]; nd.Skin != nil && nd.Mesh != nil {
			skinnedMesh[*nd.Mesh] = true
		}
	}
	var attrs []string
	for i := range doc.Meshes {
		for j := range doc.Meshes[i].Primitives {
			for name := range doc.Meshes[i].Primitives[j].Attributes {
				switch {
				case supportedAttributes[name]:
				case skinnedMesh[i] && skinned(name):
				case strings.HasPrefix(name, "_"): // application-specific
				default:
					if !slices.Contains(attrs, name) {
						attrs = append(attrs, name)
					}
				}
			}
			for _, t := range doc.Meshes[i].Primitives[j].Targets {
				for name := range t {
					if name != "POSITION" && name != "NORMAL" && name != "TANGENT" && !slices.Contains(attrs, "morph "+name) {
						attrs = append(attrs, "morph "+name)
					}
				}
			}
		}
	}
	slices.Sort(attrs)
	out = append(out, attrs...)
	exts := slices.Clone(doc.ExtensionsUsed)
	slices.Sort(exts)
	for _, e := range slices.Compact(exts) {
		add(e, !supportedExtensions[e])
	}
	return out
}

// The vertex attributes and extensions Decode reads.
var (
	supportedAttributes = map[string]bool{
		"POSITION": true, "NORMAL": true, "TANGENT": true, "TEXCOORD_0": true, "TEXCOORD_1": true, "COLOR_0": true,
	}
	supportedExtensions = map[string]bool{
		"KHR_texture_transform": true, "KHR_materials_emissive_strength": true,
	}
)
