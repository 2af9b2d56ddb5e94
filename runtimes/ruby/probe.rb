# The requirement probe of the rows whose library concbench does not install
# (the seeds' own subjects; runtime.toml's requires): `ruby probe.rb LIBRARY
# [WORKER]` prints the library's version, which goes with every result, or
# fails with why it does not load on this Ruby.
LIBRARY, WORKER = ARGV

def load(feature, hint = nil)
  require feature
rescue LoadError => e
  why = e.message.lines.first.chomp
  abort "#{feature} does not load on Ruby #{RUBY_VERSION}: #{why}#{hint&.call(why)}"
end

case LIBRARY
when "concurrently"
  load "concurrently", lambda { |why|
    " (nio4r and hitimes, its C extensions, must be built for this Ruby: gem install concurrently does so)" if why.match?(/nio|hitimes/)
  }
  print "concurrently ", Concurrently::VERSION
when "pbt"
  load "pbt"
  if WORKER # thread and process: Parallel's, and dropped in Pbt 0.5.0
    load "parallel", ->(_) { ": Pbt's #{WORKER} worker needs it (apt-get install ruby-parallel)" }
    abort "pbt #{Pbt::VERSION} has no worker: :#{WORKER} (0.5.0 dropped it)" if Gem::Version.new(Pbt::VERSION) >= Gem::Version.new("0.5")
  end
  print "pbt ", Pbt::VERSION, (", parallel #{Parallel::VERSION}" if WORKER)
else
  abort "probe.rb knows no library #{LIBRARY.inspect}"
end
