package odata

import (
	"net/http"
	"strconv"

	"github.com/storekit/store/odata/edm"
	"github.com/storekit/store/odata/syntax"
)

// schemaVersionAnnotations returns the annotation of the schema that $metadata carries when the service has a
// schema version (Config.SchemaVersion): Core.SchemaVersion with that version; none without one. The term is
// written by the Core vocabulary's alias, the spelling clients that look for it by text know (CSDL allows the
// alias of an included vocabulary wherever a qualified name stands).
func (s *Service) schemaVersionAnnotations() []edm.Annotations {
	if s.schemaVersion == "" {
		return nil
	}
	return []edm.Annotations{{Target: s.model.Namespace,
		Terms: []edm.Annotation{{Term: s.model.CoreTerm("SchemaVersion"), Value: s.schemaVersion}}}}
}

// checkSchemaVersionConfig reports a Config.SchemaVersion that a client could not ask for in $schemaversion:
// the option's grammar (letters, digits, "_", "-", ".", "~"), and not "*", which means the current version.
func checkSchemaVersionConfig(version string, fail func(format string, args ...any)) {
	if version == "" {
		return
	}
	if v, _, err := syntax.SchemaVersion("$schemaversion=" + version); err != nil || v == "*" || v != version {
		fail("SchemaVersion %q is not a version $schemaversion can name (letters, digits and _ - . ~)", version)
	}
}

// checkSchemaVersion answers the $schemaversion of a request (OData 4.01 Protocol 11.2.12), before its path
// is resolved: the version names the schema the request is made against. "*" (the current version) and the
// service's own version (Config.SchemaVersion) are served; any other is a version that does not exist: 404 Not
// Found. A service without a version has only its current, unversioned schema, so only "*" is served. A
// request of a batch that has no $schemaversion of its own inherits the batch's, which was checked with it.
func (s *Service) checkSchemaVersion(r *http.Request) error {
	version, found, err := syntax.SchemaVersion(r.URL.RawQuery)
	switch {
	case err != nil:
		return syntaxError(err)
	case !found || version == "*" || version == s.schemaVersion:
		return nil
	case s.schemaVersion == "":
		return &Error{Code: CodeNotFound, Target: "$schemaversion", Message: "The schema version " + strconv.Quote(version) +
			" does not exist: this service does not version its schema ($schemaversion=* names its current schema)."}
	}
	return &Error{Code: CodeNotFound, Target: "$schemaversion", Message: "The schema version " + strconv.Quote(version) +
		" does not exist: this service serves version " + strconv.Quote(s.schemaVersion) + " of its schema (" +
		"$schemaversion=* names the current one)."}
}
