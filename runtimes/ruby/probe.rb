# The requirement probe of the rows whose library concbench does not install
# (the seeds' own subjects; runtime.toml's requires): `ruby probe.rb LIBRARY
# [PART]` prints the library's version, which goes with every result, or
# fails with why it does not load on this Ruby.
LIBRARY, PART = ARGV # PART: Pbt's worker, or UringMachine's row

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
  if PART # thread and process: Parallel's, and dropped in Pbt 0.5.0
    load "parallel", ->(_) { ": Pbt's #{PART} worker needs it (apt-get install ruby-parallel)" }
    abort "pbt #{Pbt::VERSION} has no worker: :#{PART} (0.5.0 dropped it)" if Gem::Version.new(Pbt::VERSION) >= Gem::Version.new("0.5")
  end
  print "pbt ", Pbt::VERSION, (", parallel #{Parallel::VERSION}" if PART)
when "uringmachine" # PART: the row, for the Ruby that has it
  abort "UringMachine needs Ruby 3.4 or later: see ruby34/#{PART}" if Gem::Version.new(RUBY_VERSION) < Gem::Version.new("3.4")
  load PART == "um_fs" ? "uringmachine/fiber_scheduler" : "uringmachine"
  print "uringmachine ", UM::VERSION
else
  abort "probe.rb knows no library #{LIBRARY.inspect}"
end
