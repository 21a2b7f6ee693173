package main

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
	sandboxv1beta1 "sigs.k8s.io/agent-sandbox/api/v1beta1"
	claimsv1beta1 "sigs.k8s.io/agent-sandbox/clients/k8s/extensions/clientset/versioned/typed/api/v1beta1"
	extv1beta1 "sigs.k8s.io/agent-sandbox/extensions/api/v1beta1"
)

// claimSession claims a riot session from the warm pool: a SandboxClaim
// whose controller binds it to a Sandbox (a pod of riot, its plugins and
// a workspace volume, from deploy/kubernetes/sandboxtemplate.yaml). It
// returns the claim's name, for the caller to delete when the session is
// done.
func claimSession(ctx context.Context, claims claimsv1beta1.SandboxClaimInterface, pool string) (string, error) {
	claim := &extv1beta1.SandboxClaim{
		ObjectMeta: metav1.ObjectMeta{
			GenerateName: "riot-session-",
			Labels:       map[string]string{"app.kubernetes.io/name": "riot"},
		},
		Spec: extv1beta1.SandboxClaimSpec{WarmPoolRef: extv1beta1.SandboxWarmPoolRef{Name: pool}},
	}
	created, err := claims.Create(ctx, claim, metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("claim a session from warm pool %s: %w", pool, err)
	}
	return created.Name, nil
}

// errClaimGone ends the wait for a claim that can no longer be bound.
var errClaimGone = errors.New("the claim was deleted or expired")

// waitBound waits until the claim is bound to a ready Sandbox and returns
// the host that reaches it: the Sandbox's Service, or its pod's IP where
// the template asks for no Service. ctx bounds the wait.
func waitBound(ctx context.Context, claims claimsv1beta1.SandboxClaimInterface, name string) (string, error) {
	opts := metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", name).String()}
	for {
		// Watch first, then read: a change between the two is in the
		// watch, whatever the API server's resource versions.
		w, err := claims.Watch(ctx, opts)
		if err != nil {
			return "", fmt.Errorf("watch claim %s: %w", name, err)
		}
		host, err := func() (string, error) {
			defer w.Stop()
			c, err := claims.Get(ctx, name, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return "", fmt.Errorf("claim %s: %w", name, errClaimGone)
			}
			if err != nil {
				return "", fmt.Errorf("read claim %s: %w", name, err)
			}
			for {
				if host, err := bound(c); host != "" || err != nil {
					return host, err
				}
				select {
				case <-ctx.Done():
					return "", fmt.Errorf("claim %s is not bound to a ready sandbox: %w", name, context.Cause(ctx))
				case ev, ok := <-w.ResultChan():
					if !ok || ev.Type == watch.Error {
						// The API server ends watches now and then.
						return "", nil
					}
					if ev.Type == watch.Deleted {
						return "", fmt.Errorf("claim %s: %w", name, errClaimGone)
					}
					if next, ok := ev.Object.(*extv1beta1.SandboxClaim); ok && next.Name == name {
						c = next
					}
				}
			}
		}()
		if host != "" || err != nil {
			return host, err
		}
	}
}

// bound is the host of the claim's Sandbox once the claim says it is
// ready; "" while it is not yet.
func bound(c *extv1beta1.SandboxClaim) (string, error) {
	ready := meta.FindStatusCondition(c.Status.Conditions, string(sandboxv1beta1.SandboxConditionReady))
	if ready == nil {
		return "", nil
	}
	if ready.Reason == extv1beta1.ClaimExpiredReason || ready.Reason == sandboxv1beta1.SandboxReasonExpired {
		return "", fmt.Errorf("claim %s: %w: %s", c.Name, errClaimGone, ready.Message)
	}
	if ready.Status != metav1.ConditionTrue {
		return "", nil
	}
	if fqdn := c.Status.SandboxStatus.ServiceFQDN; fqdn != "" {
		return fqdn, nil
	}
	if ips := c.Status.SandboxStatus.PodIPs; len(ips) > 0 {
		return ips[0], nil
	}
	return "", nil
}
