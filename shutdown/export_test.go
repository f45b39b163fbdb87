package shutdown

// Names is the internal tests' names helper, for the external property
// tests.
var Names = names
