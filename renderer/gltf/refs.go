package gltf

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// checkReferences checks every index the document holds, used or not,
// against the array it indexes, so that a damaged file is refused at the
// first bad reference wherever it is (the decoding that follows checks
// the references it follows again).
func (d *decoder) checkReferences() error {
	doc := &d.doc
	type ref struct {
		path  string
		index int
		kind  string // the array indexed
		n     int    // its length
	}
	var refs []ref
	add := func(path string, index *int, kind string, n int) {
		if index != nil {
			refs = append(refs, ref{path, *index, kind, n})
		}
	}
	add("scene", doc.Scene, "scenes", len(doc.Scenes))
	for i := range doc.Scenes {
		for k := range doc.Scenes[i].Nodes {
			add(fmt.Sprintf("scenes[%d].nodes[%d]", i, k), &doc.Scenes[i].Nodes[k], "nodes", len(doc.Nodes))
		}
	}
	for i := range doc.Nodes {
		nd := &doc.Nodes[i]
		np := fmt.Sprintf("nodes[%d]", i)
		for k := range nd.Children {
			add(fmt.Sprintf("%s.children[%d]", np, k), &nd.Children[k], "nodes", len(doc.Nodes))
		}
		add(np+".mesh", nd.Mesh, "meshes", len(doc.Meshes))
		add(np+".camera", nd.Camera, "cameras", len(doc.Cameras))
		add(np+".skin", nd.Skin, "skins", len(doc.Skins))
	}
	for i := range doc.Skins {
		s := &doc.Skins[i]
		sp := fmt.Sprintf("skins[%d]", i)
		for k := range s.Joints {
			add(fmt.Sprintf("%s.joints[%d]", sp, k), &s.Joints[k], "nodes", len(doc.Nodes))
		}
		add(sp+".inverseBindMatrices", s.InverseBindMatrices, "accessors", len(doc.Accessors))
		add(sp+".skeleton", s.Skeleton, "nodes", len(doc.Nodes))
	}
	for i := range doc.Meshes {
		for j := range doc.Meshes[i].Primitives {
			p := &doc.Meshes[i].Primitives[j]
			pp := fmt.Sprintf("meshes[%d].primitives[%d]", i, j)
			names := make([]string, 0, len(p.Attributes))
			for name := range p.Attributes {
				names = append(names, name)
			}
			slices.Sort(names) // the first bad one, the same every time
			for _, name := range names {
				acc := p.Attributes[name]
				add(pp+".attributes."+jsonKey(name), &acc, "accessors", len(doc.Accessors))
			}
			add(pp+".indices", p.Indices, "accessors", len(doc.Accessors))
			add(pp+".material", p.Material, "materials", len(doc.Materials))
		}
	}
	for i := range doc.Materials {
		m := &doc.Materials[i]
		mp := fmt.Sprintf("materials[%d]", i)
		tex := func(path string, t *textureRef) {
			if t != nil {
				add(path+".index", &t.Index, "textures", len(doc.Textures))
			}
		}
		if m.PBR != nil {
			tex(mp+".pbrMetallicRoughness.baseColorTexture", m.PBR.BaseColorTexture)
			tex(mp+".pbrMetallicRoughness.metallicRoughnessTexture", m.PBR.MetallicRoughnessTexture)
		}
		tex(mp+".normalTexture", m.NormalTexture)
		tex(mp+".occlusionTexture", m.OcclusionTexture)
		tex(mp+".emissiveTexture", m.EmissiveTexture)
	}
	for i := range doc.Textures {
		t := &doc.Textures[i]
		add(fmt.Sprintf("textures[%d].sampler", i), t.Sampler, "samplers", len(doc.Samplers))
		add(fmt.Sprintf("textures[%d].source", i), t.Source, "images", len(doc.Images))
	}
	for i := range doc.Images {
		add(fmt.Sprintf("images[%d].bufferView", i), doc.Images[i].BufferView, "bufferViews", len(doc.BufferViews))
	}
	for i := range doc.Accessors {
		add(fmt.Sprintf("accessors[%d].bufferView", i), doc.Accessors[i].BufferView, "bufferViews", len(doc.BufferViews))
	}
	for i := range doc.BufferViews {
		add(fmt.Sprintf("bufferViews[%d].buffer", i), &doc.BufferViews[i].Buffer, "buffers", len(doc.Buffers))
	}
	for i := range doc.Animations {
		a := &doc.Animations[i]
		for j := range a.Channels {
			c := &a.Channels[j]
			cp := fmt.Sprintf("animations[%d].channels[%d]", i, j)
			add(cp+".sampler", &c.Sampler, fmt.Sprintf("animations[%d].samplers", i), len(a.Samplers))
			add(cp+".target.node", c.Target.Node, "nodes", len(doc.Nodes))
		}
		for j := range a.Samplers {
			s := &a.Samplers[j]
			sp := fmt.Sprintf("animations[%d].samplers[%d]", i, j)
			add(sp+".input", &s.Input, "accessors", len(doc.Accessors))
			add(sp+".output", &s.Output, "accessors", len(doc.Accessors))
		}
	}
	for _, r := range refs {
		if r.index < 0 || r.index >= r.n {
			return d.errorf(r.path, "%s[%d] does not exist (%d %s)", r.kind, r.index, r.n, r.kind)
		}
	}

	// Every extension required is one used, as the specification asks.
	for i, e := range doc.ExtensionsRequired {
		if !slices.Contains(doc.ExtensionsUsed, e) {
			return d.errorf(fmt.Sprintf("extensionsRequired[%d]", i), "extension %s is required but not in extensionsUsed", quote(e))
		}
	}
	return nil
}

// quote returns a string from the file quoted as Go quotes it (%q, so
// that no terminal escape or line break in it reaches a terminal as
// itself), cut after its first 64 bytes: a data: URI can be megabytes.
func quote(s string) string {
	const n = 64
	if len(s) <= n {
		return strconv.Quote(s)
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + fmt.Sprintf("… (%d bytes)", len(s))
}

// jsonKey returns a JSON object key as it goes into a JSON path: as it is
// where it is a plain name, else quoted (it comes from the file).
func jsonKey(k string) string {
	for _, r := range k {
		if !(r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return quote(k)
		}
	}
	if k == "" {
		return `""`
	}
	return k
}

// typeErrorPath returns the JSON path, with array indices, of the first
// value in js that does not unmarshal into a document: encoding/json's
// own UnmarshalTypeError names the fields (accessors.count) but not the
// elements. It returns "" where it finds none.
func typeErrorPath(js []byte) string {
	return locateBad(js, reflect.TypeFor[document](), "")
}

// locateBad returns the path, under prefix, of the first value in raw that
// does not unmarshal into a t, or prefix itself if raw as a whole is not
// a t but no part of it is to blame, or "" if raw unmarshals.
func locateBad(raw []byte, t reflect.Type, prefix string) string {
	if json.Unmarshal(raw, reflect.New(t).Interface()) == nil {
		return ""
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Slice:
		var elems []json.RawMessage
		if t.Elem().Kind() == reflect.Uint8 || json.Unmarshal(raw, &elems) != nil {
			return prefix
		}
		for i, e := range elems {
			if p := locateBad(e, t.Elem(), fmt.Sprintf("%s[%d]", prefix, i)); p != "" {
				return p
			}
		}
	case reflect.Map:
		var fields map[string]json.RawMessage
		if json.Unmarshal(raw, &fields) != nil {
			return prefix
		}
		keys := make([]string, 0, len(fields))
		for k := range fields {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if p := locateBad(fields[k], t.Elem(), join(prefix, jsonKey(k))); p != "" {
				return p
			}
		}
	case reflect.Struct:
		var fields map[string]json.RawMessage
		if json.Unmarshal(raw, &fields) != nil {
			return prefix
		}
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" || name == "-" {
				continue
			}
			for k, v := range fields {
				// encoding/json matches keys without regard to case.
				if strings.EqualFold(k, name) {
					if p := locateBad(v, f.Type, join(prefix, name)); p != "" {
						return p
					}
				}
			}
		}
	}
	return prefix
}

// join appends a field name to a JSON path.
func join(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}

// typeWant names, for errors, the JSON type a Go type is read from.
func typeWant(t reflect.Type) string {
	if t == nil {
		return "another type"
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "another type"
}
