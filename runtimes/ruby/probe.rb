# The requirement probe of the rows that need a library (runtime.toml's
# requires): `ruby probe.rb LIBRARY [PART]` prints the library's version and
# the file it was loaded from, which go with every result (a gem folder on
# GEM_PATH or RUBYLIB can shadow the one meant), or fails with why it does
# not load on this Ruby.
LIBRARY, PART = ARGV # PART: Pbt's worker, or UringMachine's row

# Requires the feature and answers where it was loaded from: its gem's
# folder, else its file (one on RUBYLIB, or Debian's vendor_ruby).
def load(feature, hint = nil)
  require feature
  file = $LOAD_PATH.resolve_feature_path(feature)&.last or return "an unknown place"
  gem = Gem.loaded_specs.each_value.find { |spec| file.start_with?("#{spec.full_gem_path}/") } if defined?(Gem)
  gem ? gem.full_gem_path : file
rescue LoadError => e
  why = e.message.lines.first.chomp
  abort "#{feature} does not load on Ruby #{RUBY_VERSION}: #{why}#{hint&.call(why)}"
end

case LIBRARY
when "async"
  from = load "async"
  print "async #{Async::VERSION} from #{from}"
when "celluloid"
  from = load "celluloid"
  print "celluloid #{Celluloid::VERSION} from #{from}"
when "concurrent" # edge, and the concurrent-ruby it runs on, each from its own gem
  edge = load "concurrent-edge"
  from = load "concurrent"
  print "concurrent-ruby #{Concurrent::VERSION} from #{from}, edge #{Concurrent::EDGE_VERSION} from #{edge}"
when "concurrently"
  from = load "concurrently", lambda { |why|
    " (nio4r and hitimes, its C extensions, must be built for this Ruby: gem install concurrently does so)" if why.match?(/nio|hitimes/)
  }
  print "concurrently #{Concurrently::VERSION} from #{from}"
when "pbt"
  from = load "pbt"
  if PART # thread and process: Parallel's, and dropped in Pbt 0.5.0
    parallel = load "parallel", ->(_) { ": Pbt's #{PART} worker needs it (apt-get install ruby-parallel)" }
    abort "pbt #{Pbt::VERSION} has no worker: :#{PART} (0.5.0 dropped it)" if Gem::Version.new(Pbt::VERSION) >= Gem::Version.new("0.5")
  end
  print "pbt #{Pbt::VERSION} from #{from}", (", parallel #{Parallel::VERSION} from #{parallel}" if PART)
when "uringmachine" # PART: the row, for the Ruby that has it
  abort "UringMachine needs Ruby 3.4 or later: see ruby34/#{PART}" if Gem::Version.new(RUBY_VERSION) < Gem::Version.new("3.4")
  from = load PART == "um_fs" ? "uringmachine/fiber_scheduler" : "uringmachine"
  print "uringmachine #{UM::VERSION} from #{from}"
else
  abort "probe.rb knows no library #{LIBRARY.inspect}"
end
