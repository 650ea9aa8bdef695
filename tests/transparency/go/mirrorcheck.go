// Follows a static copy of the registry's log (written by `python -m registry.verify --mirror DIR`
// and served by a plain static web server) as a tlog-tiles client would, with Go's reference
// packages: the verifier key from <base>log/key, the checkpoint's signature (sumdb/note), the
// tree from the hash tiles read through a tlog.TileReader and authenticated against the signed
// root (tlog.TileHashReader), then every entry of every entry bundle proved into that tree.
// It also checks that every tile file of the copy has the one name Go's tlog gives that tile.
// Reads {"base": URL, "files": [paths under log/]} on stdin; writes a JSON report.
// Run in GOPATH mode: GOPATH=/usr/share/gocode GO111MODULE=off go build mirrorcheck.go
package main

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

type request struct {
	Base  string   `json:"base"`
	Files []string `json:"files"`
}

type report struct {
	Error         string   `json:"error"`
	Origin        string   `json:"origin"`
	Size          int64    `json:"size"`
	Root          string   `json:"root"`
	TilesTreeHash string   `json:"tiles_tree_hash"`
	EntriesProved int64    `json:"entries_proved"`
	TilesFetched  []string `json:"tiles_fetched"`
	NonCanonical  []string `json:"non_canonical"`
}

func get(url string) ([]byte, error) {
	resp, err := http.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != 200 {
		return nil, fmt.Errorf("%s: HTTP %d", url, resp.StatusCode)
	}
	return data, nil
}

// c2sp turns Go's tile path (tile/8/L/N[.p/W], data tiles tile/8/data/...) into C2SP tlog-tiles'
// (no height; entry bundles under tile/entries/).
func c2sp(t tlog.Tile) string {
	path := strings.TrimPrefix(t.Path(), "tile/8/")
	path = strings.Replace(path, "data/", "entries/", 1)
	return "tile/" + path
}

// staticTiles is a tlog.TileReader over a static server.
type staticTiles struct {
	base    string
	fetched *[]string
}

func (r staticTiles) Height() int { return 8 }

func (r staticTiles) ReadTiles(tiles []tlog.Tile) ([][]byte, error) {
	out := make([][]byte, len(tiles))
	for i, t := range tiles {
		path := c2sp(t)
		*r.fetched = append(*r.fetched, path)
		data, err := get(r.base + "log/" + path)
		if err != nil {
			return nil, err
		}
		out[i] = data
	}
	return out, nil
}

func (r staticTiles) SaveTiles(tiles []tlog.Tile, data [][]byte) {}

func fail(rep *report, format string, args ...interface{}) {
	rep.Error = fmt.Sprintf(format, args...)
	json.NewEncoder(os.Stdout).Encode(rep)
	os.Exit(0)
}

func main() {
	var req request
	if err := json.NewDecoder(os.Stdin).Decode(&req); err != nil {
		panic(err)
	}
	var rep report
	for _, file := range req.Files {
		goPath := "tile/8/" + strings.Replace(strings.TrimPrefix(file, "tile/"), "entries/", "data/", 1)
		t, err := tlog.ParseTilePath(goPath)
		if err != nil || t.Path() != goPath {
			rep.NonCanonical = append(rep.NonCanonical, file)
		}
	}
	key, err := get(req.Base + "log/key")
	if err != nil {
		fail(&rep, "key: %v", err)
	}
	verifier, err := note.NewVerifier(strings.TrimSpace(string(key)))
	if err != nil {
		fail(&rep, "key: %v", err)
	}
	signed, err := get(req.Base + "log/checkpoint")
	if err != nil {
		fail(&rep, "checkpoint: %v", err)
	}
	n, err := note.Open(signed, note.VerifierList(verifier))
	if err != nil {
		fail(&rep, "checkpoint signature: %v", err)
	}
	lines := strings.Split(n.Text, "\n")
	rep.Origin = lines[0]
	rep.Size, err = strconv.ParseInt(lines[1], 10, 64)
	if err != nil {
		fail(&rep, "checkpoint size: %v", err)
	}
	rep.Root = lines[2]
	rootBytes, err := base64.StdEncoding.DecodeString(lines[2])
	if err != nil || len(rootBytes) != 32 {
		fail(&rep, "checkpoint root %q", lines[2])
	}
	var root tlog.Hash
	copy(root[:], rootBytes)

	var fetched []string
	hashes := tlog.TileHashReader(tlog.Tree{N: rep.Size, Hash: root}, staticTiles{req.Base, &fetched})
	th, err := tlog.TreeHash(rep.Size, hashes)
	if err != nil {
		fail(&rep, "tree hash from tiles: %v", err)
	}
	rep.TilesTreeHash = base64.StdEncoding.EncodeToString(th[:])
	for start := int64(0); start < rep.Size; start += 256 {
		width := rep.Size - start
		if width > 256 {
			width = 256
		}
		bundle := tlog.Tile{H: 8, L: -1, N: start / 256, W: int(width)}
		data, err := get(req.Base + "log/" + c2sp(bundle))
		if err != nil {
			fail(&rep, "entry bundle: %v", err)
		}
		for i := start; i < start+width; i++ {
			if len(data) < 2 || len(data) < 2+int(binary.BigEndian.Uint16(data)) {
				fail(&rep, "entry %d: bundle %s ends early", i, c2sp(bundle))
			}
			length := int(binary.BigEndian.Uint16(data))
			entry := data[2 : 2+length]
			data = data[2+length:]
			proof, err := tlog.ProveRecord(rep.Size, i, hashes)
			if err == nil {
				err = tlog.CheckRecord(proof, rep.Size, root, i, tlog.RecordHash(entry))
			}
			if err != nil {
				fail(&rep, "entry %d: %v", i, err)
			}
			rep.EntriesProved++
		}
		if len(data) != 0 {
			fail(&rep, "bundle %s holds more than %d entries", c2sp(bundle), width)
		}
	}
	rep.TilesFetched = fetched
	json.NewEncoder(os.Stdout).Encode(rep)
}
