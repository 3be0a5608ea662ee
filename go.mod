module github.com/tickframe/tickframe

go 1.26.0

require (
	github.com/go-gl/mathgl v1.2.0
	go.uber.org/goleak v1.3.0
	golang.org/x/sys v0.50.0
)
