// Package kubernetes holds riot's Kubernetes manifests (a plain Pod, and
// kubernetes-sigs/agent-sandbox's SandboxTemplate, SandboxWarmPool and
// SandboxClaim) and their tests: the manifests checked against the pinned
// CRDs' OpenAPI schemas, and the plain Pod run with `podman kube play` and
// driven over MCP. It has no code of its own; docs/kubernetes.md is its
// guide.
package kubernetes
