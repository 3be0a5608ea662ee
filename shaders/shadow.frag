// shadow.frag: the shadow map keeps depth alone; no colour is written.

void main() {
}
