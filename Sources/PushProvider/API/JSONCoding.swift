import APNSCore
package import Foundation
package import HTTPTypes
package import Hummingbird
import NIOCore
import NIOFoundationCompat
import ProviderStorage

/// How the API and the console read and write JSON: ISO 8601 times, sorted keys, and decoding errors that name the
/// field. The one request decoder and response encoder of every route.
package enum JSONCoding {
    /// The encoder of every answer.
    package static let encoder = JSONEncoder.heraldAPI()

    /// `value` as a JSON answer, with `headers` besides its content type.
    package static func response(
        _ value: some Encodable, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]
    ) throws -> Response {
        var fields = headers
        fields[.contentType] = "application/json"
        return Response(
            status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: try encoder.encode(value))))
    }

    /// `json` as an answer: for a route that builds its answer's tree itself (keys in the order given).
    static func response(json: JSONValue, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(bytes: json.encoded())))
    }

    /// Reads the request body (at most `limit` bytes, 1 MiB by default) as `T`.
    ///
    /// - Throws: ``ProviderError`` saying where the body is not JSON (line and column), naming a field that is
    ///   missing or of the wrong type, or (for a ``StrictInput``) a field the body does not have.
    package static func decode<T: Decodable>(_ type: T.Type, from request: Request, limit: Int = 1 << 20) async throws
        -> T
    {
        return try decode(type, from: try await body(of: request, limit: limit))
    }

    /// The request's body, at most `limit` bytes.
    ///
    /// - Throws: ``ProviderError/tooLarge(field:_:)`` (413, in JSON like every error) naming the limit, for a longer
    ///   body.
    package static func body(of request: Request, limit: Int) async throws -> Data {
        do {
            return Data(buffer: try await request.body.collect(upTo: limit))
        } catch is NIOTooManyBytesError {
            throw ProviderError.tooLarge(
                field: "body", "the body is larger than \(limit.formatted()) bytes, the most this route reads")
        }
    }

    /// Decodes a body already read (``decode(_:from:limit:)``), with the same checks.
    package static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        let tree = try checkedTree(T.self, from: data)
        let decoder = JSONDecoder.heraldAPI()
        do {
            return try decoder.decode(T.self, from: data)
        } catch let error as DecodingError {
            if case .dataCorrupted(let context) = error, context.codingPath.isEmpty {
                // Foundation calls a number that fits no Swift integer "not valid JSON": name it instead.
                if let (field, literal) = Self.hugeNumber(in: tree) {
                    throw ProviderError.invalid(
                        field: field,
                        message: "\(literal) is out of range: a whole number here is -9223372036854775808 to "
                            + "9223372036854775807")
                }
                // The same for a fraction where a whole number is needed (`{"rateLimit": 1.5}`).
                let fractions = Self.fractions(in: tree)
                if fractions.count == 1, let (field, literal) = fractions.first {
                    throw ProviderError.invalid(
                        field: field, message: "\(literal) is not a whole number, and this field takes one")
                } else if !fractions.isEmpty {
                    throw ProviderError.invalid(
                        field: nil,
                        message: "one of \(fractions.compactMap(\.0).joined(separator: ", ")) is a fraction where a "
                            + "whole number is needed")
                }
            }
            throw Self.problem(error)
        } catch {
            throw ProviderError.invalid(field: nil, message: "the body is not JSON: \(error)")
        }
    }

    /// The body as a JSON tree.
    ///
    /// - Throws: ``ProviderError`` saying at which line and column it is not JSON.
    /// The body parsed into a tree and checked as ``decode(_:from:)`` checks it, for a route that reads the tree
    /// itself (thousands of registrations at once, without a second pass through a decoder).
    static func checkedTree<T>(_ type: T.Type, from data: Data) throws(ProviderError) -> JSONValue {
        // Parsed into a tree first: a key written twice is refused (readers disagree on which one counts, so a proxy
        // and the provider could act on different bodies), and a strict body's keys are checked.
        let tree = try Self.parse(data)
        if let (field, key) = Self.duplicateKey(in: tree) {
            throw ProviderError.invalid(
                field: field,
                message: "\(key) is written twice in the same object; give each key once (which of two values a JSON "
                    + "reader keeps differs between readers)")
        }
        if let strict = T.self as? any StrictInput.Type { try strict.checkFields(of: tree) }
        return tree
    }

    private static func parse(_ data: Data) throws(ProviderError) -> JSONValue {
        do {
            return try JSONValue(parsing: data)
        } catch {
            throw .invalid(field: nil, message: "the body is not valid JSON: \(error)")
        }
    }

    /// The first key written twice in one object of `value`: the path of that key and the key itself.
    static func duplicateKey(in value: JSONValue, path: String? = nil) -> (String, String)? {
        switch value {
        case .array(let values):
            for (index, element) in values.enumerated() {
                if let found = duplicateKey(in: element, path: (path ?? "") + "[\(index)]") { return found }
            }
            return nil
        case .object(let object):
            if let key = object.duplicateKeys.first { return (path.map { "\($0).\(key)" } ?? key, key) }
            for member in object.members {
                if let found = duplicateKey(in: member.value, path: path.map { "\($0).\(member.key)" } ?? member.key) {
                    return found
                }
            }
            return nil
        default: return nil
        }
    }

    /// The first number in `value` that no 64-bit integer holds (`1e30`, `9223372036854775808`), with its path.
    private static func hugeNumber(in value: JSONValue, path: String? = nil) -> (String?, String)? {
        switch value {
        case .number(let number):
            let huge = Int64(number.literal) == nil && abs(number.doubleValue) >= 0x1p63
            return huge ? (path, number.literal) : nil
        case .array(let values):
            for (index, element) in values.enumerated() {
                if let found = hugeNumber(in: element, path: (path ?? "") + "[\(index)]") { return found }
            }
            return nil
        case .object(let object):
            for member in object.members {
                let child = path.map { "\($0).\(member.key)" } ?? member.key
                if let found = hugeNumber(in: member.value, path: child) { return found }
            }
            return nil
        default: return nil
        }
    }

    /// The numbers of `value` with a fraction or an exponent (`1.5`, `2e3`), by path.
    private static func fractions(in value: JSONValue, path: String? = nil) -> [(String?, String)] {
        switch value {
        case .number(let number):
            return Int64(number.literal) == nil ? [(path, number.literal)] : []
        case .array(let values):
            return values.enumerated().flatMap { fractions(in: $1, path: (path ?? "") + "[\($0)]") }
        case .object(let object):
            return object.members.flatMap { member in
                fractions(in: member.value, path: path.map { "\($0).\(member.key)" } ?? member.key)
            }
        default: return []
        }
    }

    private static func problem(_ error: DecodingError) -> ProviderError {
        func path(_ keys: [any CodingKey]) -> String? {
            let parts = keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
            return parts.isEmpty ? nil : parts.joined(separator: ".").replacingOccurrences(of: ".[", with: "[")
        }
        switch error {
        case .keyNotFound(let key, let context):
            return .invalid(field: path(context.codingPath + [key]), message: "is required")
        case .typeMismatch(let type, let context):
            return .invalid(field: path(context.codingPath), message: "must be \(Self.name(of: type))")
        case .valueNotFound(let type, let context):
            return .invalid(field: path(context.codingPath), message: "must be \(Self.name(of: type)), not null")
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty {
                return .invalid(field: nil, message: "the body is not valid JSON")
            }
            return .invalid(field: path(context.codingPath), message: context.debugDescription)
        @unknown default:
            return .invalid(field: nil, message: "\(error)")
        }
    }

    private static func name(of type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Int.Type, is Double.Type: "a number"
        case is Bool.Type: "true or false"
        case is [String].Type, is [Any].Type: "an array"
        default: "of type \(type)"
        }
    }
}
