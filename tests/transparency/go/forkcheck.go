// A client holding a saved checkpoint looks at what the registry serves now, with Go's
// reference packages (golang.org/x/mod/sumdb/note and sumdb/tlog): does the served
// checkpoint verify, is it the same tree or a consistent extension of the saved one
// (never the same size with another root: a fork), and do the leaves the site serves
// make the signed root? Reads a JSON request on stdin, writes a JSON report.
// Run in GOPATH mode: GOPATH=/usr/share/gocode GO111MODULE=off go run forkcheck.go
package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

type request struct {
	VerifierKey string   `json:"verifier_key"`
	Saved       string   `json:"saved"`
	Served      []string `json:"served"` // what each worker served
	Proof       []string `json:"proof"`  // the site's consistency proof from the saved size to the first served one
	Leaves      []string `json:"leaves"` // the leaves the site serves, in order
}

type report struct {
	Errors           []string `json:"errors"`
	Fork             bool     `json:"fork"`
	Consistent       bool     `json:"consistent"`
	LeavesMakeSigned bool     `json:"leaves_make_signed_root"`
	LeavesError      string   `json:"leaves_error"`
}

type head struct {
	size int64
	hash tlog.Hash
}

func open(verifier note.Verifier, text string) (head, error) {
	n, err := note.Open([]byte(text), note.VerifierList(verifier))
	if err != nil {
		return head{}, err
	}
	lines := strings.Split(n.Text, "\n")
	size, err := strconv.ParseInt(lines[1], 10, 64)
	if err != nil {
		return head{}, err
	}
	raw, err := base64.StdEncoding.DecodeString(lines[2])
	if err != nil || len(raw) != 32 {
		return head{}, fmt.Errorf("bad root hash %q", lines[2])
	}
	var h tlog.Hash
	copy(h[:], raw)
	return head{size, h}, nil
}

func main() {
	var req request
	if err := json.NewDecoder(os.Stdin).Decode(&req); err != nil {
		panic(err)
	}
	rep := report{Errors: []string{}}
	verifier, err := note.NewVerifier(req.VerifierKey)
	if err != nil {
		panic(err)
	}
	saved, err := open(verifier, req.Saved)
	if err != nil {
		panic(err)
	}
	rep.Consistent = true
	var first *head
	for _, text := range req.Served {
		served, err := open(verifier, text)
		if err != nil {
			rep.Errors = append(rep.Errors, err.Error())
			continue
		}
		if first == nil {
			first = &served
		}
		if served.size == saved.size && served.hash != saved.hash {
			rep.Fork = true
		}
		if served.size == first.size && served.hash != first.hash {
			rep.Fork = true // two workers, one size, two roots: a split view
		}
		if served.size < saved.size {
			rep.Consistent = false
		}
	}
	if first != nil && first.size > saved.size {
		proof := make(tlog.TreeProof, len(req.Proof))
		for i, p := range req.Proof {
			raw, _ := base64.StdEncoding.DecodeString(p)
			copy(proof[i][:], raw)
		}
		if err := tlog.CheckTree(proof, first.size, first.hash, saved.size, saved.hash); err != nil {
			rep.Consistent = false
			rep.Errors = append(rep.Errors, "consistency: "+err.Error())
		}
	}
	// The leaves served, hashed into Go's own stored tree.
	var stored []tlog.Hash
	reader := tlog.HashReaderFunc(func(indexes []int64) ([]tlog.Hash, error) {
		out := make([]tlog.Hash, len(indexes))
		for i, x := range indexes {
			if x >= int64(len(stored)) {
				return nil, fmt.Errorf("no stored hash %d", x)
			}
			out[i] = stored[x]
		}
		return out, nil
	})
	for i, leaf := range req.Leaves {
		raw, _ := base64.StdEncoding.DecodeString(leaf)
		hashes, err := tlog.StoredHashes(int64(i), raw, reader)
		if err != nil {
			panic(err)
		}
		stored = append(stored, hashes...)
	}
	if first == nil {
		rep.LeavesError = "no served checkpoint verified"
	} else if int64(len(req.Leaves)) < first.size {
		rep.LeavesError = fmt.Sprintf("the site serves %d leaves of the %d signed", len(req.Leaves), first.size)
	} else if th, err := tlog.TreeHash(first.size, reader); err != nil {
		rep.LeavesError = err.Error()
	} else if th != first.hash {
		rep.LeavesError = "the leaves served do not make the signed root"
	} else {
		rep.LeavesMakeSigned = true
	}
	json.NewEncoder(os.Stdout).Encode(rep)
}
