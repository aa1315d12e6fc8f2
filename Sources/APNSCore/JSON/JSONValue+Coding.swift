public import Foundation

extension JSONValue {
    /// Parses one JSON text.
    ///
    /// - Parameter data: UTF-8 JSON text.
    /// - Throws: ``JSONSyntaxError`` saying where and why the text is not JSON.
    public init(parsing data: Data) throws(JSONSyntaxError) {
        var parser = JSONParser(bytes: Array(data))
        self = try parser.parseDocument()
    }

    /// The value as compact UTF-8 JSON, keys in their order, numbers as written.
    public func encoded() -> Data {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        JSONWriter.write(self, into: &output)
        return Data(output)
    }

    /// The value as a compact JSON string.
    public var jsonString: String { String(decoding: encoded(), as: UTF8.self) }
}
