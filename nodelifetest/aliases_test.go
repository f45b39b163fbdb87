package nodelifetest_test

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodelife/nodelife/core"
	"github.com/nodelife/nodelife/shutdown"
)

type (
	nodelifecycleNode   = core.Node
	shutdownPhaseConfig = shutdown.PhaseConfig
	metaRef             = metav1.OwnerReference
)
