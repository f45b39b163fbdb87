package cloud

// What the external property tests (which draw from nodelifetest) need of
// the package's internals and of its internal tests' helpers.
var (
	LastAddr       = lastAddr
	ResponsibleFor = responsibleFor
	MustPlan       = mustPlan
	MP             = mp
)
