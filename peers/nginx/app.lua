-- The nginx peer's one content handler, OpenResty's model: every fixed body built once when
-- the module loads (init_by_lua), one table lookup on the path as sent per request.
-- nginx matches `location`s on the decoded, normalised URI (`/api%2Fhello` would be
-- `/api/hello`), so the handler dispatches on the raw $request_uri instead.
local ngx = ngx
local CT_TEXT = "text/plain; charset=utf-8"
local CT_JSON = "application/json"

local FIXED = {
    ["/"] = { CT_TEXT, string.rep(".", 1024) },
    ["/api/hello"] = { CT_JSON, '{"message":"Hello World"}' },
    ["/hello"] = { CT_TEXT, "Hello, World" },
}
local DYNAMIC = { ["/my/ip"] = true, ["/api"] = true }

local function send(ctype, body)
    ngx.header["Content-Type"] = ctype
    ngx.header["Content-Length"] = #body
    ngx.print(body)
end

local function empty(status)
    ngx.status = status
    ngx.header["Content-Length"] = 0
    if status == 405 then
        ngx.header["Allow"] = "GET, HEAD"
    end
    ngx.send_headers()
    return ngx.exit(ngx.OK)
end

-- The first value of a decoded query field: a string, a list of them, `true` for a bare key.
local function first(v)
    if type(v) == "table" then
        v = v[1]
    end
    return type(v) == "string" and v or ""
end

local M = {}

function M.handle()
    local uri = ngx.var.request_uri
    local q = uri:find("?", 1, true)
    local path = q and uri:sub(1, q - 1) or uri
    local fixed = FIXED[path]
    if not fixed and not DYNAMIC[path] then
        return empty(404)
    end
    local method = ngx.req.get_method()
    if method ~= "GET" and method ~= "HEAD" then
        return empty(405)
    end
    if fixed then
        return send(fixed[1], fixed[2])
    end
    if path == "/my/ip" then
        return send(CT_TEXT, ngx.var.remote_addr)
    end
    local args = ngx.req.get_uri_args()
    return send(CT_TEXT, "Hey " .. first(args.name) .. " " .. first(args.lastname))
end

return M
