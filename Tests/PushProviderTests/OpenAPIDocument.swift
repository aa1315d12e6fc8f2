import Foundation

/// docs/openapi.json, and a check of real answers against the schemas it declares (type, required properties,
/// property and item schemas, enums, `$ref`).
struct OpenAPIDocument {
    let root: [String: Any]

    static func load() throws -> OpenAPIDocument {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/openapi.json")
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: url))
        return OpenAPIDocument(root: object as? [String: Any] ?? [:])
    }

    /// The problems with `body` as the answer `status` of `method path` (a path template such as
    /// `/v1/devices/{token}`); empty when it conforms.
    func problems(method: String, path: String, status: Int, body: Any?) -> [String] {
        guard let operation = (root["paths"] as? [String: Any])?[path] as? [String: Any],
            let responses = (operation[method.lowercased()] as? [String: Any])?["responses"] as? [String: Any]
        else { return ["\(method) \(path) is not in openapi.json"] }
        guard let response = responses[String(status)] as? [String: Any] else {
            return ["\(method) \(path) does not declare status \(status)"]
        }
        guard let content = response["content"] as? [String: Any],
            let schema = (content["application/json"] as? [String: Any])?["schema"]
        else { return [] }
        return check(body, against: schema, at: "$")
    }

    private func resolve(_ schema: Any) -> [String: Any] {
        guard let object = schema as? [String: Any] else { return [:] }
        if let reference = object["$ref"] as? String {
            let name = reference.components(separatedBy: "/").last ?? ""
            let schemas = (root["components"] as? [String: Any])?["schemas"] as? [String: Any]
            return resolve(schemas?[name] ?? [:])
        }
        return object
    }

    private func check(_ value: Any?, against schema: Any, at path: String) -> [String] {
        let schema = resolve(schema)
        guard let value, !(value is NSNull) else { return ["\(path) is missing"] }
        var problems: [String] = []
        switch schema["type"] as? String {
        case "object":
            guard let object = value as? [String: Any] else { return ["\(path) is not an object"] }
            for name in schema["required"] as? [String] ?? [] where object[name] == nil {
                problems.append("\(path).\(name) is required")
            }
            let properties = schema["properties"] as? [String: Any] ?? [:]
            for (name, member) in object {
                if let property = properties[name] {
                    problems += check(member, against: property, at: "\(path).\(name)")
                } else if let additional = schema["additionalProperties"] as? [String: Any] {
                    problems += check(member, against: additional, at: "\(path).\(name)")
                }
            }
        case "array":
            guard let array = value as? [Any] else { return ["\(path) is not an array"] }
            for (index, item) in array.enumerated() {
                problems += check(item, against: schema["items"] ?? [:], at: "\(path)[\(index)]")
            }
        case "string":
            if !(value is String) { problems.append("\(path) is not a string") }
        case "integer":
            if !(value is NSNumber) || (value as? NSNumber).map({ $0.doubleValue != $0.doubleValue.rounded() }) == true
            {
                problems.append("\(path) is not an integer")
            }
        case "boolean":
            if !(value is NSNumber) { problems.append("\(path) is not a boolean") }
        default: break
        }
        if let choices = schema["enum"] as? [Any], let text = value as? String,
            !choices.contains(where: { ($0 as? String) == text })
        {
            problems.append("\(path) is \(text), not one of \(choices)")
        }
        return problems
    }
}
