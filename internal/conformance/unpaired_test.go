package conformance

// unpaired lists nodelife's exported decisions that have no exported
// upstream function to compare with, and why.
var unpaired = []string{}
