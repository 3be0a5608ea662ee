// Package gltf loads glTF 2.0 models into plain Go values a renderer can
// upload: triangle meshes with their vertex attributes, metallic-roughness
// materials with their textures and samplers, the node tree flattened
// into one world transform per mesh, and node animations with a sampler
// that poses the tree at any time. It knows nothing of OpenGL. It also
// writes models (see Builder), for tests and tools.
//
// # Supported
//
//   - Containers: binary .glb (a JSON chunk and an optional BIN chunk) and
//     JSON .gltf. Buffers and images may be embedded as base64 data: URIs
//     (the scheme and the base64 token in any case, as RFC 3986 has it),
//     kept in separate files next to the .gltf (relative, percent-encoded
//     URIs; Load never reads outside the model's directory), or, for
//     images, stored in a bufferView.
//   - Images: PNG and JPEG, recognised by their content.
//   - Vertex data: POSITION (float VEC3), NORMAL (float VEC3), TANGENT
//     (float VEC4), TEXCOORD_0 and TEXCOORD_1 (float, or normalized
//     unsigned byte or short VEC2), COLOR_0 (float, or normalized unsigned
//     byte or short, VEC3 or VEC4), with any bufferView byteStride and
//     accessor byteOffset.
//   - Indices of every width (unsigned byte, short and int); a primitive
//     without indices gets 0, 1, …, n-1. An incomplete last triangle is
//     left out, as OpenGL leaves it.
//   - Normals and tangents are renormalized where their length is off 1
//     (a zero one stays zero).
//   - Primitive mode TRIANGLES.
//   - Missing normals: flat normals are computed, as the specification
//     requires, by giving every triangle its own three vertices (the other
//     attributes follow). Missing tangents are left to the renderer
//     (renderer.Tangents).
//   - Nodes with a matrix or translation, rotation and scale, composed down
//     the tree of the scene named by "scene" (else scene 0, else every root
//     node). A node that instances a mesh several times yields one Mesh per
//     instance; the instances share their vertex and index slices.
//   - Materials: pbrMetallicRoughness (baseColorFactor and -Texture,
//     metallicFactor, roughnessFactor, metallicRoughnessTexture),
//     normalTexture with its scale, occlusionTexture with its strength,
//     emissiveFactor and emissiveTexture, alphaMode (OPAQUE, MASK with
//     alphaCutoff, BLEND), doubleSided, with glTF's defaults; each
//     texture's sampler (filters and wrap modes), texCoord 0 or 1, and the
//     extensions KHR_texture_transform and KHR_materials_emissive_strength.
//   - Animations of node translation, rotation and scale, with LINEAR
//     (slerp on the shorter arc for rotations), STEP and CUBICSPLINE
//     samplers over float keyframes (Animation.Sample, Model.WorldPose).
//   - Skins (Model.Skins): joints, inverseBindMatrices (float MAT4; the
//     identity where absent), skeleton; JOINTS_n (unsigned byte or
//     short) and WEIGHTS_n (float, or normalized unsigned byte or short)
//     VEC4 sets, each vertex keeping its four largest weights, scaled to
//     sum to 1 (Mesh.Joints, Mesh.Weights). A skinned mesh is placed by
//     its joints (Mesh.SkinPosition), its node's
//     transform ignored, as the specification says.
//   - Morph targets: POSITION, NORMAL and TANGENT displacements (float
//     VEC3), at most MaxTargets a mesh, with the node's or the mesh's
//     weights, and animations of weights (Animation.SampleWeights). A
//     skinned mesh keeps them (Mesh.Targets, Mesh.TargetWeights,
//     Mesh.Morph), for its character to morph; a mesh without a skin is
//     drawn as it rests, its weights baked into its vertices.
//
// # Ignored
//
// These do not make Decode fail; the model is drawn without them, and
// Model.Ignored names those the file holds: cameras, TEXCOORD_2 and
// higher, COLOR_1 and higher, JOINTS_n and WEIGHTS_n without a skin,
// morph target attributes other than POSITION, NORMAL and TANGENT
// ("morph TEXCOORD_0"), and
// every extension that is used but not listed in extensionsRequired (for
// example KHR_lights_punctual, KHR_materials_*). Animation channels
// without a target node are skipped, as the specification says.
//
// # Refused
//
// Decode returns an error, which satisfies errors.Is(err,
// errors.ErrUnsupported), for a valid file that uses a feature outside the
// subset: an asset.version or asset.minVersion other than 2.x / 2.0, any
// entry of extensionsRequired but the two extensions above
// (KHR_draco_mesh_compression,
// EXT_meshopt_compression, KHR_texture_basisu, KHR_mesh_quantization, …),
// a primitive without POSITION (which the specification says to skip),
// a skin whose joints the scene does not place,
// keyframes that are not floats, sparse accessors, accessors without a
// bufferView, primitive modes other than TRIANGLES, a texture that uses a
// UV set past TEXCOORD_1, a texture without a source (only an extension
// could supply its image), image formats other than PNG and JPEG, URIs
// with a scheme other than data:, and enum values glTF 2.0 does not list
// (a sampler's filter or wrap mode, alphaMode, an animation's
// interpolation or path, an accessor's componentType or type), which the
// Khronos validator only warns of.
//
// # Limits
//
// Decode returns an error matching ErrLimit for a file that the
// specification allows but that goes past one of these: accessors and
// images reading the buffers more than four times over, more than 64 Ki
// placed meshes or 16 Mi placed vertices, an image over 16384 pixels on a
// side, claiming more pixels than its encoded size can hold, or past
// 64 Mi texture pixels in all, an image file over 1 GiB (Load), more
// than MaxTargets morph targets, a morph weight past ±1000 or a target
// displacing a vertex by more than 1e13, and a vertex placed more than
// 1e18 from the origin, at rest or by an animation (bounded from the
// keyframes' largest values and tangents down the tree, and a morph by
// its largest displacements at weight 1000), so that a renderer fitting
// the model in float32 never meets an infinity. An image whose bytes PNG or JPEG decoding rejects
// gives an error matching ErrImageData (the validator reads only an
// image's header).
//
// # Files
//
// Load reads regular files only: a FIFO, a device or a directory, as the
// model or named by a URI, is refused before it is read, so that none
// can block or stream forever. No file is read past what the document
// claims: a buffer file up to its byteLength, an image file up to 1 GiB.
//
// # Damaged input
//
// Decode never panics and checks everything it reads: that the JSON is
// UTF-8, GLB header and chunk lengths, every index into the JSON arrays
// wherever it is in the document, used or not (a node's camera too),
// every accessor and bufferView range against its buffer's length, counts
// against each other, index values against the vertex count, that
// positions, normals, UVs, transforms and factors are finite, that node
// matrices are not singular, that every scene lists root nodes once,
// that keyframe times are not negative and increase, that no rotation
// keyframe is the zero quaternion, that no two channels of an animation
// drive the same property, that a skin's joints are distinct nodes, its
// inverse bind matrices one a joint (at least), affine and not singular,
// its skeleton an ancestor of every joint, that a skinned primitive has
// JOINTS_n and WEIGHTS_n in pairs, every joint index within its skin and
// every vertex's weights in [0, 1] summing to 1 within 0.01, and that
// every extension required is one used. Allocations are bounded by the size of
// the input: an accessor cannot claim more elements than its bytes hold,
// accessors that alias the same bytes may read at most four times the
// buffer data in all, an image may not claim more pixels than its encoded
// size can hold, and a model may not place more than 64 Ki meshes or 16 Mi
// vertices, or decode more than 64 Mi texture pixels, in all.
//
// Every error is an *Error naming the file and, where there is one, the
// JSON path of the offending value, array indices included, for example
//
//	gltf: model.glb: meshes[0].primitives[1].targets: 1 morph targets where primitive 0 has 2: every primitive of a mesh has as many
//	gltf: model.glb: accessors[3].count: bad JSON value: string where an integer belongs
//
// Strings from the file (URIs, extension names, enum values) are quoted
// as Go quotes them (%q, the longest cut), so that an error printed to a
// terminal carries no escape sequence from the file.
package gltf
