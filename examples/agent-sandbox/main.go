// Command agent-sandbox claims a riot session from an agent-sandbox warm
// pool (deploy/kubernetes/sandboxtemplate.yaml), waits until the claim is
// bound to a ready pod, runs one assistant turn there over MCP with the
// session's bearer token, prints the tool_result blocks, and deletes the
// claim.
//
//	go run . -namespace default -token-file TOKEN_FILE turn.json
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/agent-sandbox/clients/k8s/extensions/clientset/versioned"
	claimsv1beta1 "sigs.k8s.io/agent-sandbox/clients/k8s/extensions/clientset/versioned/typed/api/v1beta1"
)

func main() {
	kubeconfig := flag.String("kubeconfig", "", "the kubeconfig file; default: $KUBECONFIG, ~/.kube/config, or the in-cluster config")
	namespace := flag.String("namespace", "default", "the namespace of the warm pool")
	pool := flag.String("pool", "riot", "the SandboxWarmPool to claim from")
	tokenFile := flag.String("token-file", "", "the file holding the sessions' bearer token (the riot-token Secret's token)")
	port := flag.Int("port", 8765, "riot's MCP port in the pod")
	wait := flag.Duration("wait", 2*time.Minute, "how long to wait for the claim to be bound to a ready pod")
	keep := flag.Bool("keep", false, "keep the claim (and its pod) after the turn")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: %s [flags] TURN.json|-\n", os.Args[0])
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 || *tokenFile == "" {
		flag.Usage()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *kubeconfig, *namespace, *pool, *tokenFile, *port, *wait, *keep, flag.Arg(0), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "agent-sandbox:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, kubeconfig, namespace, pool, tokenFile string, port int, wait time.Duration, keep bool, turnFile string, out io.Writer) error {
	token, err := os.ReadFile(tokenFile)
	if err != nil {
		return err
	}
	turn, err := readTurn(turnFile)
	if err != nil {
		return err
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = kubeconfig
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, nil).ClientConfig()
	if err != nil {
		return err
	}
	cs, err := versioned.NewForConfig(cfg)
	if err != nil {
		return err
	}
	return session(ctx, cs.ExtensionsV1beta1().SandboxClaims(namespace), pool, strings.TrimSpace(string(token)), port, wait, keep, turn, out)
}

// session is the example's flow on any SandboxClaims client: claim, wait
// for the bound pod, run the turn, release the claim.
func session(ctx context.Context, claims claimsv1beta1.SandboxClaimInterface, pool, token string, port int, wait time.Duration, keep bool, turn []toolUse, out io.Writer) error {
	name, err := claimSession(ctx, claims, pool)
	if err != nil {
		return err
	}
	if !keep {
		defer func() {
			// Released even when ctx is done, so no pod outlives a
			// cancelled run.
			dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
			defer cancel()
			if err := claims.Delete(dctx, name, metav1.DeleteOptions{}); err != nil {
				fmt.Fprintf(os.Stderr, "agent-sandbox: delete claim %s: %v\n", name, err)
			}
		}()
	}
	wctx, cancel := context.WithTimeout(ctx, wait)
	host, err := waitBound(wctx, claims, name)
	cancel()
	if err != nil {
		return err
	}
	endpoint := "http://" + net.JoinHostPort(host, strconv.Itoa(port)) + "/"
	fmt.Fprintf(os.Stderr, "agent-sandbox: claim %s is bound; riot at %s\n", name, endpoint)
	results, err := runTurn(ctx, endpoint, token, turn)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	return enc.Encode(results)
}

func readTurn(file string) ([]toolUse, error) {
	var data []byte
	var err error
	if file == "-" {
		data, err = io.ReadAll(os.Stdin)
	} else {
		data, err = os.ReadFile(file)
	}
	if err != nil {
		return nil, err
	}
	return parseTurn(data)
}
