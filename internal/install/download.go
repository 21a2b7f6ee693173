package install

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/riot-tools/riot/config/lock"
)

// maxSums bounds a SHA256SUMS file.
const maxSums = 1 << 20

// download gets a URL source and the SHA256SUMS beside it, checks the
// file's sum against it, and extracts the binary of a .tar.gz.
func download(ctx context.Context, req Request) (*Got, error) {
	u := req.Source.URL
	file := path.Base(u.Path)
	sumsURL := *u
	sumsURL.Path = path.Join(path.Dir(u.Path), "SHA256SUMS")
	sumsURL.RawPath, sumsURL.RawQuery, sumsURL.Fragment = "", "", ""
	fmt.Fprintf(req.Progress, "downloading %s\n", u)
	sums, err := fetch(ctx, req, &sumsURL, maxSums)
	if err != nil {
		return nil, err
	}
	want, ok := sumFor(string(sums), file)
	if !ok {
		return nil, failErr(fmt.Sprintf("%s lists no sum for %s; nothing was installed. A release publishes a SHA256SUMS file with a line per file beside them.", &sumsURL, file))
	}
	data, err := fetch(ctx, req, u, maxBinary)
	if err != nil {
		return nil, err
	}
	dl := filepath.Join(req.Scratch, "download")
	if err := os.WriteFile(dl, data, 0o600); err != nil {
		return nil, failErr(fmt.Sprintf("cannot save the download: %v", err))
	}
	got, _ := lock.FileSHA256(dl)
	if got != want {
		return nil, failErr(fmt.Sprintf("%s has sha256 %s, but %s lists %s; the download is not the file released. Nothing was installed.", u, got, &sumsURL, want))
	}
	bin := filepath.Join(req.Scratch, "riot-tool-"+req.Name)
	if strings.HasSuffix(file, ".tar.gz") || strings.HasSuffix(file, ".tgz") {
		if err := extract(dl, bin, req.Name); err != nil {
			return nil, failErr(fmt.Sprintf("cannot take the plugin out of %s: %v; nothing was installed", file, err))
		}
	} else if err := os.Rename(dl, bin); err != nil {
		return nil, failErr(fmt.Sprintf("cannot keep the download: %v", err))
	}
	version := req.Version
	if version == "" {
		version = "unversioned"
	}
	return &Got{Binary: bin, Version: version}, nil
}

// fetch reads an https:// or file:// URL whole, up to limit bytes.
func fetch(ctx context.Context, req Request, u *url.URL, limit int64) ([]byte, error) {
	var body io.ReadCloser
	switch u.Scheme {
	case "file":
		f, err := os.Open(filepath.FromSlash(u.Path))
		if err != nil {
			return nil, failErr(fmt.Sprintf("cannot read %s: %s; nothing was installed", u, osText(err)))
		}
		body = f
	case "https":
		client := req.HTTP
		if client == nil {
			client = http.DefaultClient
		}
		hreq, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
		if err != nil {
			return nil, usageErr(fmt.Sprintf("%s is not a URL riot can fetch", u))
		}
		resp, err := client.Do(hreq)
		if err != nil {
			return nil, failErr(fmt.Sprintf("cannot download %s (%s); nothing was installed. Check the URL and the network.", u, netText(err)))
		}
		if resp.StatusCode != http.StatusOK {
			resp.Body.Close()
			return nil, failErr(fmt.Sprintf("downloading %s got %s; nothing was installed. Check the URL.", u, resp.Status))
		}
		body = resp.Body
	default:
		return nil, usageErr(fmt.Sprintf("%s: riot downloads https:// and file:// URLs only", u))
	}
	defer body.Close()
	data, err := io.ReadAll(io.LimitReader(body, limit+1))
	if err != nil {
		return nil, failErr(fmt.Sprintf("downloading %s broke off (%s); nothing was installed", u, netText(err)))
	}
	if int64(len(data)) > limit {
		return nil, failErr(fmt.Sprintf("%s is larger than %d MiB; nothing was installed", u, limit>>20))
	}
	return data, nil
}

func netText(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return err.Error()
}

// sumFor finds file's sum in a SHA256SUMS file (sha256sum's format:
// "HEX  NAME", or "HEX *NAME" in binary mode).
func sumFor(sums, file string) (string, bool) {
	sc := bufio.NewScanner(strings.NewReader(sums))
	for sc.Scan() {
		hex, name, ok := strings.Cut(strings.TrimSpace(sc.Text()), " ")
		name = strings.TrimPrefix(strings.TrimSpace(name), "*")
		if ok && strings.TrimPrefix(name, "./") == file && len(hex) == 64 {
			return strings.ToLower(hex), true
		}
	}
	return "", false
}

// extract writes the plugin binary of a .tar.gz to dst: the entry named
// riot-tool-NAME, or else the archive's one executable file.
func extract(archive, dst, name string) error {
	f, err := os.Open(archive)
	if err != nil {
		return err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return errors.New("it is not a gzip file")
	}
	tr := tar.NewReader(gz)
	var exes []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return errors.New("it is not a whole tar archive")
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		base := path.Base(h.Name)
		if base == "riot-tool-"+name {
			return copyTo(dst, tr, maxBinary)
		}
		if h.Mode&0o111 != 0 {
			exes = append(exes, h.Name)
		}
	}
	if len(exes) != 1 {
		return fmt.Errorf("it holds no riot-tool-%s and %d other executables, so riot cannot tell which is the plugin", name, len(exes))
	}
	// Read the archive again for the one executable.
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	if err := gz.Reset(f); err != nil {
		return err
	}
	tr = tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err != nil {
			return errors.New("it is not a whole tar archive")
		}
		if h.Name == exes[0] && h.Typeflag == tar.TypeReg {
			return copyTo(dst, tr, maxBinary)
		}
	}
}
