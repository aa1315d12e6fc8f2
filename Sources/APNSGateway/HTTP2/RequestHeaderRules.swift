import NIOHPACK

/// A request whose header block breaks HTTP/2's rules (RFC 9113 §8.2 and §8.3): the stream is reset with
/// `PROTOCOL_ERROR`.
struct MalformedHeaderBlock: Error, Equatable {
    let problem: String
}

/// The rules of RFC 9113 §8.2 and §8.3 for a request's fields, as NIOHTTP2 checks them when its own header block
/// validation is on (the gateway turns it off and checks here, on the worker, to keep the connection's event loop free).
enum RequestHeaderRules {
    /// The pseudo-header fields a request may carry.
    struct PseudoFields: OptionSet {
        let rawValue: UInt8
        static let method = PseudoFields(rawValue: 1 << 0)
        static let scheme = PseudoFields(rawValue: 1 << 1)
        static let path = PseudoFields(rawValue: 1 << 2)
        static let authority = PseudoFields(rawValue: 1 << 3)

        init(rawValue: UInt8) { self.rawValue = rawValue }

        init(name: String) throws(MalformedHeaderBlock) {
            switch name {
            case ":method": self = .method
            case ":scheme": self = .scheme
            case ":path": self = .path
            case ":authority": self = .authority
            default: throw MalformedHeaderBlock(problem: "\(name) is not a request pseudo-header field")
            }
        }
    }

    /// Whether a field is only meaningful to HTTP/1.1 connections (§8.2.2). A `switch`, not a `Set`: hashing every
    /// field name of every request cost more than comparing it with five.
    static func isConnectionSpecific(_ name: String) -> Bool {
        switch name {
        case "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade": true
        default: false
        }
    }

    /// Checks a pseudo-header field's value: no control characters, spaces or DEL.
    static func checkPseudoValue(_ name: String, _ value: String) throws(MalformedHeaderBlock) {
        if value.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) {
            throw MalformedHeaderBlock(problem: "\(name) has a space or a control character")
        }
    }

    /// Checks a regular field: a lowercase token name, not connection-specific, `te` only as `trailers`, and a value
    /// without NUL, CR or LF.
    static func checkRegular(_ name: String, _ value: String) throws(MalformedHeaderBlock) {
        guard !name.isEmpty, isFieldName(name) else {
            throw MalformedHeaderBlock(problem: "\(name) is not a valid field name (lowercase token characters only)")
        }
        if isConnectionSpecific(name) {
            throw MalformedHeaderBlock(problem: "\(name) is a connection-specific field, not allowed in HTTP/2")
        }
        if name == "te", value != "trailers" {
            throw MalformedHeaderBlock(problem: "te may only be \"trailers\" in HTTP/2")
        }
        if hasNulCROrLF(value) {
            throw MalformedHeaderBlock(problem: "the value of \(name) has a NUL, CR or LF")
        }
    }

    /// Whether a value holds NUL, LF or CR: one pass over its bytes in place (a provider token is about 250 of them on
    /// every request), where a closure over the UTF-8 view cost a call per byte.
    static func hasNulCROrLF(_ value: String) -> Bool {
        let scan = { (bytes: UnsafeBufferPointer<UInt8>) -> Bool in
            var found = false
            for byte in bytes where byte < 0x0E { found = found || byte == 0x00 || byte == 0x0A || byte == 0x0D }
            return found
        }
        if let found = value.utf8.withContiguousStorageIfAvailable(scan) { return found }
        return value.utf8.contains { $0 == 0x00 || $0 == 0x0A || $0 == 0x0D }
    }

    /// Checks which pseudo-header fields a request had: `:method`, `:scheme` and a non-empty `:path` (`:method` and
    /// `:authority` only, for CONNECT).
    static func checkPseudoFields(_ seen: PseudoFields, method: String?, path: String?) throws(MalformedHeaderBlock) {
        let (allowed, mandatory): (PseudoFields, PseudoFields) =
            method == "CONNECT"
            ? ([.method, .authority], [.method, .authority])
            : ([.method, .scheme, .path, .authority], [.method, .scheme, .path])
        guard seen.isSubset(of: allowed), seen.isSuperset(of: mandatory) else {
            throw MalformedHeaderBlock(problem: "the request lacks a required pseudo-header field or has one too many")
        }
        if path?.isEmpty == true { throw MalformedHeaderBlock(problem: ":path is empty") }
    }

    /// Whether every byte of a name is a token character other than an uppercase letter (RFC 9110 §5.6.2, §5.1).
    private static func isFieldName(_ name: String) -> Bool {
        let scan = { (bytes: UnsafeBufferPointer<UInt8>) -> Bool in
            var valid = true
            for byte in bytes { valid = valid && isFieldNameByte(byte) }
            return valid
        }
        return name.utf8.withContiguousStorageIfAvailable(scan) ?? name.utf8.allSatisfy(isFieldNameByte)
    }

    /// A token character other than an uppercase letter (RFC 9110 §5.6.2, §5.1).
    private static func isFieldNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x21, 0x23...0x27, 0x2A, 0x2B, 0x2D, 0x2E, 0x30...0x39, 0x5E...0x7A, 0x7C, 0x7E: true
        default: false
        }
    }
}
