// Checks the registry's transparency log with Go's reference implementation
// (golang.org/x/mod/sumdb/note and golang.org/x/mod/sumdb/tlog): the checkpoint's
// signature, the tree hash of the leaves, inclusion and consistency proofs, and the
// hash tiles served over HTTP (authenticated against the signed root by
// tlog.TileHashReader). Reads a JSON request on stdin, writes a JSON report.
// Run in GOPATH mode: GOPATH=/usr/share/gocode GO111MODULE=off go run tlogcheck.go
package main

import (
	"bytes"
	"encoding/base64"
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

type inclusion struct {
	Index int64    `json:"index"`
	Size  int64    `json:"size"`
	Root  string   `json:"root"`
	Proof []string `json:"proof"`
}

type consistency struct {
	First      int64    `json:"first"`
	Second     int64    `json:"second"`
	FirstRoot  string   `json:"first_root"`
	SecondRoot string   `json:"second_root"`
	Proof      []string `json:"proof"`
}

type request struct {
	VerifierKey string        `json:"verifier_key"`
	Checkpoint  string        `json:"checkpoint"`
	LogURL      string        `json:"log_url"`
	Leaves      []string      `json:"leaves"`
	Inclusions  []inclusion   `json:"inclusions"`
	Consistency []consistency `json:"consistency"`
}

type report struct {
	SignatureError   string   `json:"signature_error"`
	Origin           string   `json:"origin"`
	Size             int64    `json:"size"`
	Root             string   `json:"root"`
	LeavesTreeHash   string   `json:"leaves_tree_hash"`
	TilesTreeHash    string   `json:"tiles_tree_hash"`
	TilesError       string   `json:"tiles_error"`
	InclusionErrors  []string `json:"inclusion_errors"`
	ProofsAsGo       []bool   `json:"proofs_as_go"`
	ConsistencyErrs  []string `json:"consistency_errors"`
	ConsistencyAsGo  []bool   `json:"consistency_as_go"`
	TilesFetched     []string `json:"tiles_fetched"`
}

func hashOf(s string) tlog.Hash {
	var h tlog.Hash
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil || len(raw) != len(h) {
		panic("bad hash " + s)
	}
	copy(h[:], raw)
	return h
}

func hashes(list []string) []tlog.Hash {
	out := make([]tlog.Hash, len(list))
	for i, s := range list {
		out[i] = hashOf(s)
	}
	return out
}

func equal(a, b []tlog.Hash) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// tileReader fetches C2SP tlog-tiles: Go's paths are tile/8/L/N[.p/W]; C2SP's omit the height.
type tileReader struct {
	base    string
	fetched *[]string
	cache   map[string][]byte
}

func (r tileReader) Height() int { return 8 }

func (r tileReader) ReadTiles(tiles []tlog.Tile) ([][]byte, error) {
	out := make([][]byte, len(tiles))
	for i, t := range tiles {
		path := "tile/" + strings.TrimPrefix(t.Path(), "tile/8/")
		if data, ok := r.cache[path]; ok {
			out[i] = data
			continue
		}
		*r.fetched = append(*r.fetched, path)
		resp, err := http.Get(r.base + path)
		if err != nil {
			return nil, err
		}
		data, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		if resp.StatusCode != 200 {
			return nil, fmt.Errorf("%s: HTTP %d", path, resp.StatusCode)
		}
		r.cache[path] = data
		out[i] = data
	}
	return out, nil
}

func (r tileReader) SaveTiles(tiles []tlog.Tile, data [][]byte) {}

func main() {
	var req request
	if err := json.NewDecoder(os.Stdin).Decode(&req); err != nil {
		panic(err)
	}
	var rep report
	verifier, err := note.NewVerifier(req.VerifierKey)
	if err != nil {
		panic(err)
	}
	n, err := note.Open([]byte(req.Checkpoint), note.VerifierList(verifier))
	if err != nil {
		rep.SignatureError = err.Error()
		json.NewEncoder(os.Stdout).Encode(rep)
		return
	}
	lines := strings.Split(n.Text, "\n")
	rep.Origin = lines[0]
	rep.Size, _ = strconv.ParseInt(lines[1], 10, 64)
	rep.Root = lines[2]
	root := hashOf(lines[2])

	// The tree hash of the leaves, computed by tlog from its own stored hashes.
	var stored []tlog.Hash
	reader := tlog.HashReaderFunc(func(indexes []int64) ([]tlog.Hash, error) {
		out := make([]tlog.Hash, len(indexes))
		for i, x := range indexes {
			out[i] = stored[x]
		}
		return out, nil
	})
	for i, leaf := range req.Leaves {
		data, _ := base64.StdEncoding.DecodeString(leaf)
		more, err := tlog.StoredHashes(int64(i), data, reader)
		if err != nil {
			panic(err)
		}
		stored = append(stored, more...)
	}
	th, err := tlog.TreeHash(int64(len(req.Leaves)), reader)
	if err != nil {
		panic(err)
	}
	rep.LeavesTreeHash = base64.StdEncoding.EncodeToString(th[:])

	for _, inc := range req.Inclusions {
		data, _ := base64.StdEncoding.DecodeString(req.Leaves[inc.Index])
		proof := tlog.RecordProof(hashes(inc.Proof))
		msg := ""
		if err := tlog.CheckRecord(proof, inc.Size, hashOf(inc.Root), inc.Index, tlog.RecordHash(data)); err != nil {
			msg = err.Error()
		}
		rep.InclusionErrors = append(rep.InclusionErrors, msg)
		goProof, err := tlog.ProveRecord(inc.Size, inc.Index, reader)
		rep.ProofsAsGo = append(rep.ProofsAsGo, err == nil && equal(goProof, proof))
	}
	for _, c := range req.Consistency {
		proof := tlog.TreeProof(hashes(c.Proof))
		msg := ""
		if err := tlog.CheckTree(proof, c.Second, hashOf(c.SecondRoot), c.First, hashOf(c.FirstRoot)); err != nil {
			msg = err.Error()
		}
		rep.ConsistencyErrs = append(rep.ConsistencyErrs, msg)
		goProof, err := tlog.ProveTree(c.Second, c.First, reader)
		rep.ConsistencyAsGo = append(rep.ConsistencyAsGo, err == nil && equal(goProof, proof))
	}

	// The tiles, fetched and authenticated against the signed root, then used to prove every record.
	var fetched []string
	tiles := tlog.TileHashReader(tlog.Tree{N: rep.Size, Hash: root}, tileReader{req.LogURL, &fetched, map[string][]byte{}})
	if h, err := tlog.TreeHash(rep.Size, tiles); err != nil {
		rep.TilesError = err.Error()
	} else {
		rep.TilesTreeHash = base64.StdEncoding.EncodeToString(h[:])
		for i := int64(0); i < rep.Size; i++ {
			p, err := tlog.ProveRecord(rep.Size, i, tiles)
			if err == nil {
				data, _ := base64.StdEncoding.DecodeString(req.Leaves[i])
				err = tlog.CheckRecord(p, rep.Size, root, i, tlog.RecordHash(data))
			}
			if err != nil {
				rep.TilesError = fmt.Sprintf("record %d: %v", i, err)
				break
			}
		}
	}
	rep.TilesFetched = fetched
	var buf bytes.Buffer
	json.NewEncoder(&buf).Encode(rep)
	os.Stdout.Write(buf.Bytes())
}
