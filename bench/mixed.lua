-- Replays a traffic trace in order (bench/run.py writes it: METHOD<TAB>PATH<TAB>BODY a line,
-- BODY empty for a GET). Arguments after "--": the trace file, wrk's thread count, and a mode:
--   cycle        each thread starts at its own share of the trace and walks the whole of it in
--                order, round and round, until -d ends;
--   once FILE    the threads split the trace into equal shares; each sends its share in order,
--                stops once that many responses have come back and appends a line to FILE.
--                wrk itself runs until -d, so bench/run.py interrupts it (SIGINT: it stops and
--                reports) when FILE has a line per thread: the run is one pass over the trace.
--                A thread's other connections may have sent the start of its share again when
--                it stops: those answers are neither counted nor timed.
-- Requests carry wrk's -H headers (the API key); POSTs add Content-Type: application/json.

local next_id = 0

function setup(thread)
   thread:set("id", next_id)
   next_id = next_id + 1
end

local requests, first, last, position, share, answered, done_file

function init(args)
   local threads = tonumber(args[2])
   local get_headers, post_headers = {}, {}
   for name, value in pairs(wrk.headers) do
      get_headers[name] = value
      post_headers[name] = value
   end
   post_headers["Content-Type"] = "application/json"
   requests = {}
   for line in io.lines(args[1]) do
      local method, path, body = line:match("^(%u+)\t([^\t]+)\t(.*)$")
      if body == "" then
         requests[#requests + 1] = wrk.format(method, path, get_headers)
      else
         requests[#requests + 1] = wrk.format(method, path, post_headers, body)
      end
   end
   first = math.floor(id * #requests / threads) + 1
   if args[3] == "once" then
      last = math.floor((id + 1) * #requests / threads)
      share = last - first + 1
      answered = 0
      done_file = args[4]
   else
      last = #requests
      response = nil -- no per-response work while cycling
   end
   position = first
end

function request()
   local chosen = requests[position]
   position = position + 1
   if position > last then
      position = share and first or 1
   end
   return chosen
end

function response(status, headers, body)
   answered = answered + 1
   if answered == share then
      local done = io.open(done_file, "a")
      done:write(id, "\n")
      done:close()
      wrk.thread:stop()
   end
end
