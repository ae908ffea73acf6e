package odata

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"strconv"
	"strings"
)

// changeSetGroup is the prefix of the internal group names of change sets; a Content-ID cannot start with it.
const changeSetGroup = "\x00changeset"

// parseMultipartBatch reads a multipart/mixed batch body (OData 4.01 Part 1, 11.7): parts of type
// application/http are single requests, parts of type multipart/mixed change sets of such requests.
func parseMultipartBatch(data []byte, boundary string, limit int) ([]*batchItem, error) {
	if boundary == "" {
		return nil, BadRequest(CodeBadRequest, "$batch", "A multipart batch needs a boundary parameter in its Content-Type.")
	}
	reader := multipart.NewReader(bytes.NewReader(data), boundary)
	check := newBatchChecker()
	var items []*batchItem
	for index := 1; ; index++ {
		part, err := reader.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, malformedBatch(err)
		}
		mediaType, params, _ := mime.ParseMediaType(part.Header.Get("Content-Type"))
		var added []*batchItem
		switch mediaType {
		case "application/http":
			item, err := multipartItem(part, part.Header)
			if err != nil {
				return nil, err
			}
			added = []*batchItem{item}
		case "multipart/mixed":
			if added, err = parseChangeSet(part, params["boundary"], changeSetGroup+strconv.Itoa(index), limit); err != nil {
				return nil, err
			}
		default:
			return nil, BadRequest(CodeBadRequest, "$batch", fmt.Sprintf(
				"Part %d of the batch has Content-Type %q; want application/http or multipart/mixed (a change set).",
				index, part.Header.Get("Content-Type")))
		}
		for _, item := range added {
			if err := check.add(item); err != nil {
				return nil, err
			}
		}
		if items = append(items, added...); len(items) > limit {
			return nil, tooManyRequests(len(items), limit)
		}
	}
	if len(items) == 0 {
		return nil, BadRequest(CodeBadRequest, "$batch", "The multipart batch holds no part: check its boundary.")
	}
	return items, nil
}

// parseChangeSet reads the requests of a change set, of the given group, at most limit of them.
func parseChangeSet(body io.Reader, boundary, group string, limit int) ([]*batchItem, error) {
	if boundary == "" {
		return nil, BadRequest(CodeBadRequest, "$batch", "A change set needs a boundary parameter in its Content-Type.")
	}
	reader := multipart.NewReader(body, boundary)
	var items []*batchItem
	for {
		part, err := reader.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, malformedBatch(err)
		}
		if mediaType, _, _ := mime.ParseMediaType(part.Header.Get("Content-Type")); mediaType != "application/http" {
			return nil, BadRequest(CodeBadRequest, "$batch", fmt.Sprintf(
				"A part of a change set has Content-Type %q; want application/http.", part.Header.Get("Content-Type")))
		}
		item, err := multipartItem(part, part.Header)
		if err != nil {
			return nil, err
		}
		item.group = group
		items = append(items, item)
		if len(items) > limit {
			return nil, tooManyRequests(len(items), limit)
		}
	}
	if len(items) == 0 {
		return nil, BadRequest(CodeBadRequest, "$batch", "A change set holds no request.")
	}
	return items, nil
}

func malformedBatch(err error) error {
	return BadRequest(CodeBadRequest, "$batch", "The multipart batch body is malformed: "+err.Error()+".")
}

// multipartItem reads the HTTP request a part of type application/http holds: the request line (the URL
// relative to the service root, an absolute path or an absolute URL), the headers, an empty line, the body.
func multipartItem(part io.Reader, partHeader textproto.MIMEHeader) (*batchItem, error) {
	reader := textproto.NewReader(bufio.NewReader(part))
	line, err := reader.ReadLine()
	for err == nil && strings.TrimSpace(line) == "" {
		line, err = reader.ReadLine() // blank lines before the request line are tolerated
	}
	if err != nil {
		return nil, BadRequest(CodeBadRequest, "$batch", "A part of the batch holds no request line.")
	}
	fields := strings.Fields(line)
	if len(fields) != 3 || !strings.HasPrefix(fields[2], "HTTP/1.") {
		return nil, BadRequest(CodeBadRequest, "$batch", fmt.Sprintf("The request line %q is not METHOD URL HTTP/1.1.", line))
	}
	method := strings.ToUpper(fields[0])
	if !batchMethods[method] {
		return nil, BadRequest(CodeBadRequest, "$batch", fmt.Sprintf("The request line %q has a method other than GET, POST, PUT, PATCH or DELETE.", line))
	}
	header, err := reader.ReadMIMEHeader()
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, BadRequest(CodeBadRequest, "$batch", fmt.Sprintf("The headers of the request %q are malformed.", line))
	}
	body, err := io.ReadAll(reader.R)
	if err != nil {
		return nil, malformedBatch(err)
	}
	if n, err := strconv.Atoi(header.Get("Content-Length")); err == nil && n >= 0 && n < len(body) {
		body = body[:n]
	}
	if len(bytes.TrimSpace(body)) == 0 {
		body = nil
	}
	item := &batchItem{method: method, url: fields[1], header: http.Header(header), body: body}
	item.id = partHeader.Get("Content-ID")
	if item.id == "" {
		item.id = header.Get("Content-ID")
	}
	item.header.Del("Content-ID")
	item.header.Del("Content-Length")
	return item, nil
}

// writeMultipart answers a multipart batch: 200 with one application/http part per request outside a change set
// and one multipart/mixed part per change set that succeeded; a change set that failed answers one
// application/http part, the response of the request that failed.
func (b *batchRun) writeMultipart(req *request, results []*batchResult) error {
	var buf bytes.Buffer
	writer := multipart.NewWriter(&buf)
	for i := 0; i < len(results); {
		end := i + 1
		group := results[i].item.group
		for group != "" && end < len(results) && results[end].item.group == group {
			end++
		}
		if err := writeMultipartEntry(writer, results[i:end]); err != nil {
			return err
		}
		i = end
	}
	if err := writer.Close(); err != nil {
		return err
	}
	return b.writeAnswer(req, "multipart/mixed;boundary="+writer.Boundary(), req.version.String(), buf.Bytes())
}

// writeMultipartEntry writes the part of one request, or of one change set.
func writeMultipartEntry(writer *multipart.Writer, results []*batchResult) error {
	if results[0].item.group == "" {
		return writeResponsePart(writer, results[0])
	}
	for _, res := range results {
		if res.cause {
			return writeResponsePart(writer, res)
		}
	}
	var buf bytes.Buffer
	changeSet := multipart.NewWriter(&buf)
	for _, res := range results {
		if err := writeResponsePart(changeSet, res); err != nil {
			return err
		}
	}
	if err := changeSet.Close(); err != nil {
		return err
	}
	part, err := writer.CreatePart(textproto.MIMEHeader{"Content-Type": {"multipart/mixed;boundary=" + changeSet.Boundary()}})
	if err != nil {
		return err
	}
	_, err = part.Write(buf.Bytes())
	return err
}

// writeResponsePart writes one answer as an application/http part: status line, headers, body.
func writeResponsePart(writer *multipart.Writer, res *batchResult) error {
	header := textproto.MIMEHeader{"Content-Type": {"application/http"}, "Content-Transfer-Encoding": {"binary"}}
	if res.item.id != "" {
		header["Content-ID"] = []string{res.item.id} // spelt as OData writes it, not canonicalised to Content-Id
	}
	part, err := writer.CreatePart(header)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "HTTP/1.1 %d %s\r\n", res.status, http.StatusText(res.status))
	for _, name := range sortedHeaderNames(res.header) {
		if name == "Content-Length" {
			continue
		}
		for _, value := range res.header[name] {
			fmt.Fprintf(&b, "%s: %s\r\n", name, value)
		}
	}
	fmt.Fprintf(&b, "Content-Length: %d\r\n\r\n", len(res.body))
	b.Write(res.body)
	_, err = part.Write(b.Bytes())
	return err
}
