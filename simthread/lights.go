package simthread

import "github.com/go-gl/mathgl/mgl32"

// MaxPointLights is how many point lights the renderer shades with: the
// first MaxPointLights of Lights.Points; the others are ignored. Eight
// keeps the lights' uniform block small and a software rasterizer's
// per-pixel loop short.
const MaxPointLights = 8

// Lights are the scene's lights: a directional light (the sun), the sky's
// ambient light and up to MaxPointLights point lights, published with the
// Snapshot as Bodies are. The renderer's built-in shading (and every
// material's own shader through Surface, see docs/scene.md) is lit by the
// lights of the two snapshots around the display time: point lights'
// positions and the sun's direction interpolated, the rest the newer
// snapshot's.
//
// The zero Lights is the default look: the default sun (DefaultSun), the
// full sky, no point light. A world that publishes lights writes them in
// every Snapshot, starting with Reset (the slot keeps what an earlier tick
// wrote); Points' memory is the slot's and is reused, so writing them
// allocates nothing once every slot has held the most.
type Lights struct {
	// Sun is the directional light; its zero value is DefaultSun.
	Sun DirLight
	// SkyDim takes that share, 0 to 1, away from the sky's ambient light:
	// 0 keeps the default sky, 1 leaves none (a night lit by the lights
	// alone).
	SkyDim float32
	// Points are the point lights; the first MaxPointLights are drawn.
	Points []PointLight
}

// DirLight is a light from infinitely far away along Dir: a sun.
type DirLight struct {
	// Dir points from the scene towards the light; it need not be unit.
	// A zero Dir is DefaultSun (Color and Intensity are then ignored).
	Dir mgl32.Vec3
	// Color is the light's colour, linear RGB; zero is white.
	Color mgl32.Vec3
	// Intensity scales Color: a white matte surface facing the light
	// shows Color × Intensity (linear, 1 is white), at an angle θ to it
	// cos θ times that. 0 is no sun (the sky and the point lights alone).
	Intensity float32
	// Shadows turns the sun's shadows on (they are off by default): every
	// body, static body and model then casts a shadow, within
	// ShadowRadius metres of ShadowCenter, on what the renderer's
	// built-in shading lights (bodies, models, the ground); the shadow
	// takes the sun's share of the light away, not the sky's or the
	// point lights'. The area is what one square shadow map covers: a
	// larger radius gives blurrier shadows (docs/scene.md, "Shadows").
	// It holds for a zero Dir too: the default sun's shadows.
	Shadows bool
	// ShadowCenter is the middle of the shadowed area, in the world; it
	// is interpolated between snapshots as a free point light is (a world
	// may centre it on the camera's target or on a player).
	ShadowCenter mgl32.Vec3
	// ShadowRadius is the shadowed area's radius, in metres; 0 is 20 m.
	ShadowRadius float32
}

// DefaultSun is the sun of the zero Lights: high, from the front left,
// slightly warm.
func DefaultSun() DirLight {
	return DirLight{Dir: mgl32.Vec3{-0.45, 0.8, 0.4}, Color: mgl32.Vec3{1, 0.96, 0.9}, Intensity: 1.9}
}

// PointLight is a light at a point, shining equally in every direction.
// A white matte surface facing it at distance d shows
//
//	Color × Intensity / d² × clamp(1 − (d/Range)⁴, 0, 1)²
//
// (linear; the inverse square law, brought smoothly to zero at Range, as
// glTF's KHR_lights_punctual recommends). The zero PointLight gives no
// light.
type PointLight struct {
	// Pos is where the light is, or, with OnBody, its offset (along the
	// world's axes) from body Body's position as the renderer draws it,
	// interpolated (a lamp carried by a body). Body is an index in the
	// snapshot's Bodies; a light tied to a body the snapshot does not
	// have gives no light. Free lights are interpolated by index between
	// the two snapshots around the display time when both hold as many
	// points (as Lines are), and are the newer snapshot's otherwise.
	Pos    mgl32.Vec3
	Body   int
	OnBody bool
	// Color is the light's colour, linear RGB; zero is white.
	Color mgl32.Vec3
	// Intensity scales Color: what a white matte surface facing the light
	// 1 m away shows.
	Intensity float32
	// Range is the distance at which the light has faded to nothing; 0
	// is no limit (the inverse square law alone).
	Range float32
}

// Reset empties the lights back to the zero Lights (the default sun and
// sky, no point light), keeping Points' memory for the lights added next.
func (l *Lights) Reset() {
	*l = Lights{Points: l.Points[:0]}
}
