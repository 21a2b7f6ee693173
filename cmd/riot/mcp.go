package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/riot-tools/riot/cmd/riot/internal/ident"
	"github.com/riot-tools/riot/core"
	"github.com/riot-tools/riot/internal/mcpserver"
)

func (a *app) mcpCommand() *cobra.Command {
	var listen, token, tokenFile string
	var origins []string
	var remote bool
	var shutdownTimeout time.Duration
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve riot's tools over MCP, on stdio or Streamable HTTP",
		Long: `Serve riot's tools to any MCP client, behind riot's permission chain and result
budgets. A call that needs permission is asked through MCP elicitation when the client
supports it, and denied otherwise.

Without --listen, riot serves one client on stdio. With --listen 127.0.0.1:PORT it serves
the Streamable HTTP transport at http://127.0.0.1:PORT/, on loopback unless --allow-remote
is given. Every request needs "Authorization: Bearer TOKEN": the token is --token, or the content
of --token-file (such as a mounted Kubernetes secret), or $RIOT_MCP_TOKEN, or else the one
in the state dir's mcp-token file (created, readable by its owner only, on first use).
GET /healthz (liveness) and /readyz (readiness) answer without the token and say nothing
about the session. On SIGTERM or SIGINT riot stops listening, answers every call in
flight Cancelled, naming the shutdown, within --shutdown-timeout, writes the session's
state, and exits 0.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			// Before anything is read or started: riot must never serve
			// itself to the riot that started it.
			in, out := a.stdin, a.stdout
			if listen != "" {
				in, out = nil, nil
			}
			if err := mcpserver.RefuseSelf(ctx, os.Getenv, in, out); err != nil {
				return &exitError{code: exitOutcome, msg: "mcp: " + err.Error()}
			}
			var ln net.Listener
			var httpOpts mcpserver.HTTPOptions
			if listen == "" && (token != "" || tokenFile != "" || len(origins) > 0 || remote || cmd.Flags().Changed("shutdown-timeout")) {
				return usageErr("--token, --token-file, --allow-origin, --allow-remote and --shutdown-timeout are for --listen; on stdio the client that starts riot is the only one")
			}
			if shutdownTimeout <= 0 {
				return usageErr("--shutdown-timeout must be positive, such as 20s")
			}
			if token != "" && tokenFile != "" {
				return usageErr("give --token or --token-file, not both")
			}
			if listen != "" {
				addr, err := mcpserver.ListenAddr(listen, remote)
				if err != nil {
					return usageErr("%v", err)
				}
				if httpOpts.Token, err = a.mcpToken(token, tokenFile); err != nil {
					return err
				}
				httpOpts.Origins, httpOpts.ShutdownTimeout = origins, shutdownTimeout
				if ln, err = net.Listen("tcp", addr); err != nil {
					return usageErr("cannot listen on %s: %v", addr, err)
				}
				defer ln.Close()
			}
			a.everyTool = true
			srv, err := mcpserver.New(ctx, ident.Version, func(ctx context.Context, opts core.Options) (*core.Host, error) {
				return a.host(ctx, opts)
			})
			if err != nil {
				return err
			}
			defer srv.Close()
			if ln != nil {
				fmt.Fprintf(a.stderr, "riot: serving MCP on http://%s/\n", ln.Addr())
				err = srv.ServeHTTP(ctx, ln, httpOpts)
				if err == nil && ctx.Err() != nil {
					fmt.Fprintf(a.stderr, "riot: %v: stopped serving MCP and cancelled the calls in flight\n", context.Cause(ctx))
				}
			} else {
				err = srv.ServeStdio(ctx, a.stdin, a.stdout)
			}
			if err != nil {
				return &exitError{code: exitOutcome, msg: "mcp: " + err.Error()}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&listen, "listen", "", "serve Streamable HTTP on this loopback address, such as 127.0.0.1:8765, instead of stdio")
	f.StringVar(&token, "token", "", "the bearer token HTTP clients must send (default $RIOT_MCP_TOKEN, or the state dir's mcp-token file)")
	f.StringVar(&tokenFile, "token-file", "", "a file holding the bearer token, such as a mounted secret")
	f.StringArrayVar(&origins, "allow-origin", nil, "a browser origin allowed besides loopback ones, such as https://app.example (repeatable)")
	f.BoolVar(&remote, "allow-remote", false, "allow --listen on an address that is not loopback")
	f.DurationVar(&shutdownTimeout, "shutdown-timeout", mcpserver.DefaultShutdownTimeout, "on SIGTERM, how long calls in flight have to be answered Cancelled before riot exits; keep it below the pod's terminationGracePeriodSeconds")
	return cmd
}

// mcpToken is the HTTP bearer token: --token, --token-file, the
// environment, or the state dir's token file.
func (a *app) mcpToken(flag, file string) (string, error) {
	if flag != "" {
		return flag, nil
	}
	if file != "" {
		// The file is the operator's, such as a Kubernetes secret volume,
		// whose modes the operator sets: read as given, never created.
		data, err := os.ReadFile(file)
		if err != nil {
			return "", usageErr("cannot read --token-file: %v", err)
		}
		tok := strings.TrimSpace(string(data))
		if tok == "" {
			return "", usageErr("--token-file %s is empty; write the bearer token in it", file)
		}
		return tok, nil
	}
	if env := os.Getenv("RIOT_MCP_TOKEN"); env != "" {
		return env, nil
	}
	cfg, _, err := a.loadConfig()
	if err != nil {
		return "", err
	}
	tok, err := mcpserver.LoadOrCreateToken(mcpserver.TokenFile(cfg.ResolvedStateDir(nil)))
	if err != nil {
		return "", usageErr("%v", err)
	}
	return tok, nil
}
