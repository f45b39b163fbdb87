package cri

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestNegotiate(t *testing.T) {
	const ep = "unix:///run/containerd/containerd.sock"
	cases := []struct {
		name       string
		advertised []APIVersion
		opts       NegotiateOptions
		want       APIVersion
		warning    string
		err        string
	}{
		{"v1 preferred", []APIVersion{V1alpha2, V1}, NegotiateOptions{Endpoint: ep, AllowV1alpha2: true}, V1, "", ""},
		{"v1 only", []APIVersion{V1}, NegotiateOptions{Endpoint: ep}, V1, "", ""},
		{"v1alpha2 only, current kubelet", []APIVersion{V1alpha2}, NegotiateOptions{Endpoint: ep}, "", "",
			`validate service connection: validate CRI v1 runtime API for endpoint "unix:///run/containerd/containerd.sock": rpc error: code = Unimplemented desc = unknown service runtime.v1.RuntimeService`},
		{"v1alpha2 only, 1.23-1.25 fallback", []APIVersion{V1alpha2}, NegotiateOptions{Endpoint: ep, AllowV1alpha2: true}, V1alpha2,
			"Falling back to CRI v1alpha2 runtime API (deprecated)", ""},
		{"image service fallback", []APIVersion{V1alpha2}, NegotiateOptions{Endpoint: ep, AllowV1alpha2: true, Service: "image"}, V1alpha2,
			"Falling back to CRI v1alpha2 image API (deprecated)", ""},
		{"nothing in common", []APIVersion{"v2"}, NegotiateOptions{Endpoint: ep, AllowV1alpha2: true, Service: "image"}, "", "",
			`validate service connection: validate CRI v1 image API for endpoint "unix:///run/containerd/containerd.sock": rpc error: code = Unimplemented desc = unknown service runtime.v1.ImageService`},
		{"nothing advertised", nil, NegotiateOptions{Endpoint: ep}, "", "", "unknown service runtime.v1.RuntimeService"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n, err := Negotiate(c.advertised, c.opts)
			if c.err != "" {
				if !errors.Is(err, ErrNoCommonVersion) || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err %v, want %q", err, c.err)
				}
				var ve *VersionError
				if !errors.As(err, &ve) || !strings.Contains(ve.Explain(), "the node does not register") {
					t.Errorf("explain: %v", err)
				}
				return
			}
			if err != nil || n.Version != c.want || n.Warning != c.warning {
				t.Errorf("got %+v %v, want %s %q", n, err, c.want, c.warning)
			}
		})
	}
}

type versionsFunc func(context.Context) ([]APIVersion, error)

func (f versionsFunc) APIVersions(ctx context.Context) ([]APIVersion, error) { return f(ctx) }

func TestNegotiateWith(t *testing.T) {
	down := errors.New("rpc error: code = Unavailable desc = connection error")
	_, err := NegotiateWith(context.Background(), versionsFunc(func(context.Context) ([]APIVersion, error) { return nil, down }),
		NegotiateOptions{Endpoint: "unix:///var/run/crio/crio.sock"})
	if !errors.Is(err, down) || errors.Is(err, ErrNoCommonVersion) ||
		err.Error() != `validate service connection: validate CRI v1 runtime API for endpoint "unix:///var/run/crio/crio.sock": rpc error: code = Unavailable desc = connection error` {
		t.Errorf("runtime down: %v", err)
	}
	n, err := NegotiateWith(context.Background(), versionsFunc(func(context.Context) ([]APIVersion, error) { return []APIVersion{V1}, nil }), NegotiateOptions{})
	if err != nil || n.Version != V1 {
		t.Errorf("v1: %+v %v", n, err)
	}
}
