package renderer

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/tickframe/tickframe/shaders"
)

// Typed GL object names: a zero value is "no object", and Valid says so.
// A distinct type per kind of object lets the compiler catch a buffer
// passed where a texture belongs, which raw uint32s would not.
type (
	// glProgram is a linked GL program; see loadShaderProgram.
	glProgram uint32
	// glBuffer is a GL buffer object.
	glBuffer uint32
	// glVertexArray is a GL vertex array object.
	glVertexArray uint32
	// glTexture is a GL texture object.
	glTexture uint32
)

// Valid reports whether p names a program: GL never names one 0.
func (p glProgram) Valid() bool { return p != 0 }

// Valid reports whether b names a buffer: GL never names one 0.
func (b glBuffer) Valid() bool { return b != 0 }

// Valid reports whether v names a vertex array: GL never names one 0.
func (v glVertexArray) Valid() bool { return v != 0 }

// Valid reports whether t names a texture: GL never names one 0.
func (t glTexture) Valid() bool { return t != 0 }

// Delete deletes the program, if p names one, and sets p to 0, so that
// failure paths can delete every object unconditionally.
func (p *glProgram) Delete() {
	if p.Valid() {
		gl.DeleteProgram(uint32(*p))
		*p = 0
	}
}

// Delete deletes the buffer, if b names one, and sets b to 0, so that
// failure paths can delete every object unconditionally.
func (b *glBuffer) Delete() {
	if b.Valid() {
		n := uint32(*b)
		gl.DeleteBuffers(1, &n)
		*b = 0
	}
}

// Delete deletes the vertex array, if v names one, and sets v to 0, so that
// failure paths can delete every object unconditionally.
func (v *glVertexArray) Delete() {
	if v.Valid() {
		n := uint32(*v)
		gl.DeleteVertexArrays(1, &n)
		*v = 0
	}
}

// Delete deletes the texture, if t names one, and sets t to 0, so that
// failure paths can delete every object unconditionally.
func (t *glTexture) Delete() {
	if t.Valid() {
		n := uint32(*t)
		gl.DeleteTextures(1, &n)
		*t = 0
	}
}

func newBuffer() glBuffer {
	var n uint32
	gl.GenBuffers(1, &n)
	return glBuffer(n)
}

func newVertexArray() glVertexArray {
	var n uint32
	gl.GenVertexArrays(1, &n)
	return glVertexArray(n)
}

// errGL is wrapped by every error that reports a GL error code.
var errGL = errors.New("GL error")

// glErrorName names the error codes OpenGL 4.1 core can return.
func glErrorName(code uint32) string {
	switch code {
	case gl.INVALID_ENUM:
		return "GL_INVALID_ENUM"
	case gl.INVALID_VALUE:
		return "GL_INVALID_VALUE"
	case gl.INVALID_OPERATION:
		return "GL_INVALID_OPERATION"
	case gl.INVALID_FRAMEBUFFER_OPERATION:
		return "GL_INVALID_FRAMEBUFFER_OPERATION"
	case gl.OUT_OF_MEMORY:
		return "GL_OUT_OF_MEMORY"
	}
	return fmt.Sprintf("GL error 0x%04x", code)
}

// checkGL drains the GL error queue and returns the first error, naming op.
// It is called at resource boundaries and once per frame (OpenGL 4.1 core
// has no debug callback); builds with -tags tickframegldebug also call it
// after every draw-path call through debugGL.
func checkGL(op string) error {
	first := gl.GetError()
	if first == gl.NO_ERROR {
		return nil
	}
	for i := 0; i < 16 && gl.GetError() != gl.NO_ERROR; i++ {
	}
	return fmt.Errorf("renderer: %s: %s: %w", op, glErrorName(first), errGL)
}

// debugCheck panics in debug builds when op left a GL error, so the
// failing call is found at once; in normal builds it compiles to nothing.
func debugCheck(op string) {
	if debugGL {
		if err := checkGL(op); err != nil {
			panic(err)
		}
	}
}

// ShaderError is a shader stage that failed to compile, or a program that
// failed to link.
type ShaderError struct {
	Stage  string // "vertex", "fragment" or "link"
	File   string // the stage's file in shaders/, or a material's own shader ("a.vert+b.frag" for link)
	Log    string // the driver's info log
	Source string // the file's source; the driver's "0:N" line numbers refer to it
	// own is set for a material's own shader (Material.Shader), which
	// lives in the app's files, not in shaders/.
	own bool
}

// Error returns the stage, the file and the driver's log, followed by the
// source with line numbers, because the driver's log cites lines by number.
func (e *ShaderError) Error() string {
	var b strings.Builder
	what := "compile"
	if e.Stage == "link" {
		what = "link"
	}
	dir := "shaders/"
	if e.own {
		what, dir = what+" material shader", ""
	}
	fmt.Fprintf(&b, "renderer: %s %s%s (%s): %s", what, dir, e.File, e.Stage, strings.TrimSpace(e.Log))
	if e.Source != "" {
		b.WriteString("\n")
		sc := bufio.NewScanner(strings.NewReader(e.Source))
		for n := 1; sc.Scan(); n++ {
			fmt.Fprintf(&b, "%4d  %s\n", n, sc.Text())
		}
	}
	return b.String()
}

// glslVersion is the first line of every stage.
const glslVersion = "#version 410 core\n"

// stage names one shader stage's sources: the file name in files, and the
// library it is compiled against: common.glsl, then prelude if not "",
// both read from lib.
type stage struct {
	files   fs.FS
	name    string
	lib     fs.FS
	prelude string
	own     bool   // a material's own shader (see ShaderError)
	defines string // preprocessor lines after the version line ("#define X\n")
}

// source assembles a stage: the version line, common.glsl, the prelude,
// then the file. #line directives make the driver report lines of
// common.glsl as "1:N", of the prelude as "2:N", and of the file itself
// as "0:N", so its log points into the file.
func (st stage) source() (full, own string, err error) {
	var b strings.Builder
	b.WriteString(glslVersion)
	b.WriteString(st.defines)
	libs := []string{shaders.Common}
	if st.prelude != "" {
		libs = append(libs, st.prelude)
	}
	for i, name := range libs {
		lib, err := fs.ReadFile(st.lib, name)
		if err != nil {
			return "", "", fmt.Errorf("renderer: read shaders/%s: %w", name, err)
		}
		fmt.Fprintf(&b, "#line 1 %d\n%s\n", i+1, lib)
	}
	body, err := fs.ReadFile(st.files, st.name)
	if err != nil {
		if st.own {
			return "", "", fmt.Errorf("renderer: read material shader %s: %w", st.name, err)
		}
		return "", "", fmt.Errorf("renderer: read shaders/%s: %w", st.name, err)
	}
	b.WriteString("#line 1 0\n")
	b.Write(body)
	return b.String(), string(body), nil
}

func compile(st stage, kind uint32) (uint32, error) {
	src, own, err := st.source()
	if err != nil {
		return 0, err
	}
	sh := gl.CreateShader(kind)
	csrc, free := gl.Strs(src + "\x00")
	gl.ShaderSource(sh, 1, csrc, nil)
	free()
	gl.CompileShader(sh)
	var ok int32
	gl.GetShaderiv(sh, gl.COMPILE_STATUS, &ok)
	if ok == gl.FALSE {
		log := shaderLog(sh)
		gl.DeleteShader(sh)
		stageName := "vertex"
		if kind == gl.FRAGMENT_SHADER {
			stageName = "fragment"
		}
		return 0, &ShaderError{Stage: stageName, File: st.name, Log: log, Source: own, own: st.own}
	}
	return sh, nil
}

func shaderLog(sh uint32) string { return infoLog(sh, gl.GetShaderiv, gl.GetShaderInfoLog) }
func programLog(p uint32) string { return infoLog(p, gl.GetProgramiv, gl.GetProgramInfoLog) }

// infoLog reads a shader's or a program's info log.
func infoLog(obj uint32, getiv func(uint32, uint32, *int32), getLog func(uint32, int32, *int32, *uint8)) string {
	var n int32
	getiv(obj, gl.INFO_LOG_LENGTH, &n)
	if n <= 1 {
		return "no log from the driver"
	}
	buf := make([]byte, n)
	getLog(obj, n, nil, &buf[0])
	return strings.TrimRight(string(buf), "\x00")
}

// loadShaderProgram compiles and links a program from shaders in files (usually
// shaders.FS), each stage with files' common.glsl before it. A failure
// returns a *ShaderError naming the file, with the driver's log and the
// numbered source; every GL object made on the way is deleted. If
// feedback names vertex outputs, they are captured with interleaved
// transform feedback.
func loadShaderProgram(files fs.FS, vert, frag string, feedback ...string) (glProgram, error) {
	fragStage := stage{}
	if frag != "" {
		fragStage = stage{files: files, name: frag, lib: files}
	}
	return loadProgram(stage{files: files, name: vert, lib: files}, fragStage, feedback...)
}

// loadProgram is loadShaderProgram with each stage's sources named apart; a
// fragment stage with no name means none.
func loadProgram(vert, frag stage, feedback ...string) (glProgram, error) {
	vs, err := compile(vert, gl.VERTEX_SHADER)
	if err != nil {
		return 0, err
	}
	defer gl.DeleteShader(vs) // flagged for deletion; freed with the program
	p := gl.CreateProgram()
	gl.AttachShader(p, vs)
	if frag.name != "" {
		fs, err := compile(frag, gl.FRAGMENT_SHADER)
		if err != nil {
			gl.DeleteProgram(p)
			return 0, err
		}
		defer gl.DeleteShader(fs)
		gl.AttachShader(p, fs)
	}
	if len(feedback) > 0 {
		names, free := gl.Strs(terminate(feedback)...)
		gl.TransformFeedbackVaryings(p, int32(len(feedback)), names, gl.INTERLEAVED_ATTRIBS)
		free()
	}
	gl.LinkProgram(p)
	var ok int32
	gl.GetProgramiv(p, gl.LINK_STATUS, &ok)
	if ok == gl.FALSE {
		log := programLog(p)
		gl.DeleteProgram(p)
		files := vert.name
		if frag.name != "" {
			files += "+" + frag.name
		}
		e := &ShaderError{Stage: "link", File: files, Log: log}
		if frag.own {
			// A material's shader links against the built-in vertex
			// stage: its own source is what the log is about.
			e.own = true
			if src, own, err := frag.source(); err == nil && src != "" {
				e.Source = own
			}
		}
		return 0, e
	}
	if err := checkGL("link " + vert.name); err != nil {
		gl.DeleteProgram(p)
		return 0, err
	}
	return glProgram(p), nil
}

func terminate(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s + "\x00"
	}
	return out
}

// uniform returns a uniform's location; -1 (absent or optimised away) is
// accepted by gl.Uniform* as a no-op.
func (p glProgram) uniform(name string) int32 {
	return gl.GetUniformLocation(uint32(p), gl.Str(name+"\x00"))
}
