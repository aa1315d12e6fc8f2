public import Foundation

extension Data {
    /// Base64 with `-` and `_` and no padding (RFC 4648 §5), safe in URLs, headers and file names.
    public var base64URLEncodedString: String {
        // Byte by byte: Foundation's replacingOccurrences went through NSString, three times.
        var text = Array(base64EncodedString().utf8)
        while text.last == UInt8(ascii: "=") { text.removeLast() }
        for index in text.indices {
            switch text[index] {
            case UInt8(ascii: "+"): text[index] = UInt8(ascii: "-")
            case UInt8(ascii: "/"): text[index] = UInt8(ascii: "_")
            default: break
            }
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Reads base64url text, padded or not; `nil` when it is not base64url.
    public init?(base64URLEncoded text: String) {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        self.init(base64Encoded: base64)
    }
}
