// morphweight.vert: the skinned characters' morph weight pass. One point
// per morph weight of the newer snapshot (Snapshot.MorphWeights, read in
// place), rasterizer off: it lerps the weight from the older snapshot at
// uAlpha and captures it with transform feedback, for skin.vert.
//
// The tag is the renderer's, written per weight when a snapshot is
// uploaded: (the character's index, its Epoch, its model and the weight's
// place in the character). A weight whose tag differs between the two
// snapshots (the character jumped, changed its model, or is new) is the
// newer one as it is; past uPrevCount the older attributes are stale
// bytes and ignored, as in skinjoint.vert.

layout(location = 0) in float iPrevWeight;
layout(location = 1) in uvec4 iPrevTag;
layout(location = 2) in float iNextWeight;
layout(location = 3) in uvec4 iNextTag;

uniform float uAlpha;
uniform int uPrevCount; // weights in the older snapshot

out float oWeight;

void main() {
    oWeight = iNextWeight;
    if (gl_VertexID < uPrevCount && iPrevTag.xyz == iNextTag.xyz) {
        oWeight = mix(iPrevWeight, iNextWeight, uAlpha);
    }
}
