/// Herald's version: what `herald --version` prints, `/healthz` answers and `/metrics` labels its build with.
package enum HeraldVersion {
    /// The version of this build.
    package static let current = "0.26.0"
}
