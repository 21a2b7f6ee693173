package shared

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"os"
	"strings"
	"time"
)

// TLSEnv is the environment variable that carries a plugin's TLS material
// from the host. go-plugin's AutoMTLS generates P-521 keys at every plugin
// start, about 13 ms each on the machines riot targets; the same mutual TLS
// with P-256 keys made once per host costs about 1.6 ms per start. The value
// holds the plugin's key, so it lives only in the plugin's environment, which
// only its own user can read, and the SDK removes it once read.
const TLSEnv = "RIOT_PLUGIN_TLS"

// tlsServerName is the name the plugin's certificate is issued for; the
// plugin listens on loopback or a Unix socket.
const tlsServerName = "localhost"

// TLSMaterial is one host's mutual TLS identity: a certificate for the host
// as client and one for its plugins as servers, each trusting only the other.
type TLSMaterial struct {
	client     tls.Certificate
	clientPEM  []byte
	serverPEM  []byte
	serverKey  []byte
	serverPool *x509.CertPool
}

// NewTLSMaterial generates fresh P-256 identities for one host.
func NewTLSMaterial() (*TLSMaterial, error) {
	clientPEM, clientKey, err := selfSigned("riot host", x509.ExtKeyUsageClientAuth)
	if err != nil {
		return nil, err
	}
	serverPEM, serverKey, err := selfSigned(tlsServerName, x509.ExtKeyUsageServerAuth)
	if err != nil {
		return nil, err
	}
	client, err := tls.X509KeyPair(clientPEM, clientKey)
	if err != nil {
		return nil, fmt.Errorf("host certificate: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(serverPEM) {
		return nil, errors.New("plugin certificate does not parse")
	}
	return &TLSMaterial{client: client, clientPEM: clientPEM, serverPEM: serverPEM, serverKey: serverKey, serverPool: pool}, nil
}

// ClientConfig is the host's tls.Config for go-plugin's ClientConfig.TLSConfig.
func (m *TLSMaterial) ClientConfig() *tls.Config {
	return &tls.Config{
		Certificates: []tls.Certificate{m.client},
		RootCAs:      m.serverPool,
		ServerName:   tlsServerName,
		MinVersion:   tls.VersionTLS13,
		// Post-quantum key exchange guards traffic recorded now against
		// decryption later; between two processes over a private Unix
		// socket it only adds a third to every handshake.
		CurvePreferences: []tls.CurveID{tls.X25519},
	}
}

// PluginEnv is the TLSEnv=value entry to add to a plugin's environment.
func (m *TLSMaterial) PluginEnv() string {
	bundle := make([]byte, 0, len(m.serverPEM)+len(m.serverKey)+len(m.clientPEM))
	bundle = append(bundle, m.serverPEM...)
	bundle = append(bundle, m.serverKey...)
	bundle = append(bundle, m.clientPEM...)
	return TLSEnv + "=" + base64.StdEncoding.EncodeToString(bundle)
}

// ServerTLSFromEnv is the plugin side, for go-plugin's ServeConfig.TLSProvider.
// It fails when the host sent no material: a riot plugin never serves
// without mutual TLS.
func ServerTLSFromEnv() (*tls.Config, error) {
	raw := os.Getenv(TLSEnv)
	if raw == "" {
		return nil, errors.New("no TLS material from the host: riot plugins are started by riot")
	}
	_ = os.Unsetenv(TLSEnv)
	bundle, err := base64.StdEncoding.DecodeString(raw)
	if err != nil {
		return nil, fmt.Errorf("TLS material: %w", err)
	}
	var certs, keys [][]byte
	for {
		var block *pem.Block
		block, bundle = pem.Decode(bundle)
		if block == nil {
			break
		}
		enc := pem.EncodeToMemory(block)
		if strings.Contains(block.Type, "PRIVATE KEY") {
			keys = append(keys, enc)
		} else {
			certs = append(certs, enc)
		}
	}
	if len(certs) != 2 || len(keys) != 1 {
		return nil, errors.New("TLS material is malformed")
	}
	cert, err := tls.X509KeyPair(certs[0], keys[0])
	if err != nil {
		return nil, fmt.Errorf("plugin certificate: %w", err)
	}
	clients := x509.NewCertPool()
	if !clients.AppendCertsFromPEM(certs[1]) {
		return nil, errors.New("host certificate does not parse")
	}
	return &tls.Config{
		Certificates: []tls.Certificate{cert},
		ClientAuth:   tls.RequireAndVerifyClientCert,
		ClientCAs:    clients,
		MinVersion:   tls.VersionTLS13,
		// As on the host's side.
		CurvePreferences: []tls.CurveID{tls.X25519},
	}, nil
}

func selfSigned(name string, usage x509.ExtKeyUsage) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("generate key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, nil, fmt.Errorf("serial: %w", err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: name, Organization: []string{"riot"}},
		DNSNames:              []string{tlsServerName},
		NotBefore:             now.Add(-time.Minute),
		NotAfter:              now.Add(24 * time.Hour * 365),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{usage},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, fmt.Errorf("create certificate: %w", err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, fmt.Errorf("marshal key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), nil
}
