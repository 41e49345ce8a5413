// Every verifier diagnostic of the pim dialect.
// RUN: %raptor-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{crossbar size must be [rows, cols], both positive}}
pim.chip @m cores 4 crossbars 8 of [128] memory 65536 {}

// -----

// expected-error @+1 {{local memory beyond 2 GiB cannot be addressed with 32-bit immediates}}
pim.chip @m cores 4 crossbars 8 of [128, 128] memory 4294967296 {}

// -----

// expected-error @+1 {{weight_bits must be a positive multiple of cell_bits}}
pim.chip @m cores 4 crossbars 8 of [128, 128] memory 65536 attributes {cell_bits = 3 : i64} {}

// -----

pim.chip @m cores 2 crossbars 8 of [128, 128] memory 65536 {
  // expected-error @+1 {{has id 2 outside 0..1}}
  pim.core 2 {}
}

// -----

pim.chip @m cores 2 crossbars 8 of [128, 128] memory 65536 {
  pim.core 1 {}
  // expected-error @+1 {{duplicates core 1}}
  pim.core 1 {}
}

// -----

pim.chip @m cores 2 crossbars 2 of [128, 128] memory 65536 {
  pim.weight @w dense<1.0> : tensor<4x4xf32>
  // expected-error @+1 {{groups hold 3 crossbars but a core has 2}}
  pim.core 0 {
    pim.group 0 crossbars 2 weight @w matrix #layout.layout<(4,4):(1,4)> rows [0, 4] cols [0, 4]
    pim.group 1 crossbars 1 weight @w matrix #layout.layout<(4,4):(1,4)> rows [0, 4] cols [0, 4]
  }
}

// -----

pim.chip @m cores 2 crossbars 2 of [128, 128] memory 65536 {
  pim.weight @w dense<1.0> : tensor<4x4xf32>
  pim.core 0 {
    pim.group 0 crossbars 1 weight @w matrix #layout.layout<(4,4):(1,4)> rows [0, 4] cols [0, 4]
    // expected-error @+1 {{duplicates group 0 of core 0}}
    pim.group 0 crossbars 1 weight @w matrix #layout.layout<(4,4):(1,4)> rows [0, 4] cols [0, 4]
  }
}

// -----

// A program directory lists a core's groups by position: the emitter wrote
// these out of order and the loader refused the directory.
pim.chip @m cores 2 crossbars 2 of [128, 128] memory 65536 {
  pim.weight @w dense<1.0> : tensor<4x4xf32>
  pim.core 0 {
    // expected-error @+1 {{is group 1 of core 0 where group 0 belongs}}
    pim.group 1 crossbars 1 weight @w matrix #layout.layout<(4,4):(1,4)> rows [0, 4] cols [0, 4]
    pim.group 0 crossbars 1 weight @w matrix #layout.layout<(4,4):(1,4)> rows [0, 4] cols [0, 4]
  }
}

// -----

// The largest id (a hash set's reserved key) is an id like any other
// until the group's own verifier bounds it (found by make fuzz).
pim.chip @m cores 2 crossbars 2 of [8, 8] memory 65536 {
  pim.weight @w dense<1.0> : tensor<4x4xf32>
  pim.core 0 {
    // expected-error @+1 {{has id 9223372036854775807 but a core holds at most 2 groups}}
    pim.group 9223372036854775807 crossbars 1 weight @w matrix #layout.layout<(4,4):(1,4)> rows [0, 4] cols [0, 4]
  }
}

// -----

pim.chip @m cores 2 crossbars 2 of [2, 2] memory 65536 {
  pim.weight @w dense<1.0> : tensor<4x4xf32>
  pim.core 0 {
    // expected-error @+1 {{holds 4 rows but a crossbar has 2}}
    pim.group 0 crossbars 1 weight @w matrix #layout.layout<(4,4):(1,4)> rows [0, 4] cols [0, 2]
  }
}

// -----

pim.chip @m cores 2 crossbars 2 of [2, 2] memory 65536 {
  pim.weight @w dense<1.0> : tensor<4x4xf32>
  pim.core 0 {
    // expected-error @+1 {{holds 4 columns but its 1 crossbars have 2}}
    pim.group 0 crossbars 1 weight @w matrix #layout.layout<(4,4):(1,4)> rows [0, 2] cols [0, 4]
  }
}

// -----

pim.chip @m cores 2 crossbars 2 of [8, 8] memory 65536 {
  pim.weight @w dense<1.0> : tensor<4x4xf32>
  pim.core 0 {
    // expected-error @+1 {{rows and cols must be non-empty ranges [begin, end]}}
    pim.group 0 crossbars 1 weight @w matrix #layout.layout<(4,4):(1,4)> rows [2, 2] cols [0, 4]
  }
}

// -----

pim.chip @m cores 2 crossbars 2 of [8, 8] memory 65536 {
  pim.core 0 {
    // expected-error @+1 {{names @missing, which is not a pim.weight}}
    pim.group 0 crossbars 1 weight @missing matrix #layout.layout<(4,4):(1,4)> rows [0, 4] cols [0, 4]
  }
}

// -----

pim.chip @m cores 2 crossbars 2 of [8, 8] memory 65536 {
  pim.weight @w dense<1.0> : tensor<4x4xf32>
  pim.core 0 {
    // expected-error @+1 {{matrix layout 16:1 must have two modes (rows, cols)}}
    pim.group 0 crossbars 1 weight @w matrix #layout.layout<16:1> rows [0, 4] cols [0, 4]
  }
}

// -----

pim.chip @m cores 2 crossbars 2 of [8, 8] memory 65536 {
  pim.weight @w dense<1.0> : tensor<4x4xf32>
  pim.core 0 {
    // expected-error @+1 {{tile rows [0, 4) cols [0, 5) leave the 4x4 matrix}}
    pim.group 0 crossbars 1 weight @w matrix #layout.layout<(4,4):(1,4)> rows [0, 4] cols [0, 5]
  }
}

// -----

pim.chip @m cores 2 crossbars 2 of [8, 8] memory 65536 {
  pim.weight @w dense<1.0> : tensor<4x4xf32>
  pim.core 0 {
    // expected-error @+1 {{matrix layout (4,4):(1,5) reaches element 18 of a weight with 16}}
    pim.group 0 crossbars 1 weight @w matrix #layout.layout<(4,4):(1,5)> rows [0, 4] cols [0, 4]
  }
}

// -----

pim.chip @m cores 2 crossbars 2 of [8, 8] memory 65536 {
  pim.core 0 {
    // expected-error @+1 {{element width 12 is not 8, 16 or 32 bits}}
    pim.setbw 12, 32
  }
}

// -----

pim.chip @m cores 2 crossbars 2 of [8, 8] memory 65536 {
  pim.core 0 {
    // expected-error @+1 {{expected a register r0..r31}}
    pim.sldi r32, 0
  }
}

// -----

pim.chip @m cores 2 crossbars 2 of [8, 8] memory 65536 {
  pim.core 0 {
    // expected-error @+1 {{must repeat between 1 and 2^31-1 times}}
    pim.repeat 0 [] {
      pim.vrelu r2, r2 len 1 : f32
    }
  }
}

// -----

pim.chip @m cores 2 crossbars 2 of [8, 8] memory 65536 {
  pim.core 0 {
    // expected-error @+1 {{strides register r2 twice}}
    pim.repeat 2 [r2 += 4, r2 += 8] {
      pim.vrelu r2, r2 len 1 : f32
    }
  }
}

// -----

pim.chip @m cores 2 crossbars 2 of [8, 8] memory 65536 {
  pim.core 0 {
    pim.repeat 2 [r2 += 4] {
      // expected-error @+1 {{writes r2, which an enclosing pim.repeat strides}}
      pim.saddi r2, r2, 4
      pim.vrelu r2, r2 len 1 : f32
    }
  }
}

// -----

pim.chip @m cores 2 crossbars 2 of [8, 8] memory 65536 {
  pim.core 0 {
    // expected-error @+1 {{length -1 is outside 0..2^31-1}}
    pim.vrelu r2, r2 len -1 : f32
  }
}

// -----

pim.chip @m cores 2 crossbars 2 of [8, 8] memory 65536 {
  pim.core 0 {
    // expected-error @+1 {{global addresses are register pairs (r, r+1) with r even; got r3}}
    pim.ld r2, r3 size 4
  }
}

// -----

pim.chip @m cores 2 crossbars 2 of [8, 8] memory 65536 {
  pim.core 0 {
    // expected-error @+1 {{global addresses are register pairs (r, r+1) with r even; got r1}}
    pim.st r1, r2 size 4
  }
}

// -----

pim.chip @m cores 2 crossbars 2 of [8, 8] memory 65536 {
  pim.core 0 {
    pim.setbw 32, 32
    // expected-error @+1 {{uses group 3, which core 0 does not have}}
    pim.mvmul r2, r2, group 3 mbiw 8
  }
}

// -----

pim.chip @m cores 2 crossbars 2 of [8, 8] memory 65536 {
  pim.weight @w dense<1.0> : tensor<4x4xf32>
  pim.core 0 {
    pim.group 0 crossbars 1 weight @w matrix #layout.layout<(4,4):(1,4)> rows [0, 4] cols [0, 4]
    // expected-error @+1 {{needs a pim.setbw earlier in the program (element widths)}}
    pim.mvmul r2, r2, group 0 mbiw 8
  }
}

// -----

pim.chip @m cores 2 crossbars 2 of [8, 8] memory 65536 {
  pim.weight @w dense<1.0> : tensor<4x4xf32>
  pim.core 0 {
    pim.group 0 crossbars 1 weight @w matrix #layout.layout<(4,4):(1,4)> rows [0, 4] cols [0, 4]
    pim.setbw 32, 32
    // expected-error @+1 {{mbiw 12 is not a multiple of the 8-bit cells}}
    pim.mvmul r2, r2, group 0 mbiw 12
  }
}

// -----

pim.chip @m cores 2 crossbars 2 of [8, 8] memory 65536 {
  pim.core 0 {
    pim.sldi r2, 0
    // expected-error @+1 {{names its own core 0}}
    pim.send r2 to 0 size 4 tag 1
  }
}

// -----

pim.chip @m cores 2 crossbars 2 of [8, 8] memory 65536 {
  pim.core 0 {
    pim.sldi r2, 0
    // expected-error @+1 {{names core 5 outside 0..1}}
    pim.recv r2 from 5 size 4 tag 1
  }
}

// -----

pim.chip @m cores 2 crossbars 2 of [8, 8] memory 1024 {
  pim.core 0 {
    pim.sldi r2, 1000
    // expected-error @+1 {{accesses local bytes [1000, 1032) through r2, outside the core's 1024 bytes}}
    pim.vrelu r2, r2 len 8 : f32
  }
}

// -----

// A loop's strided register covers every iteration.
pim.chip @m cores 2 crossbars 2 of [8, 8] memory 1024 {
  pim.core 0 {
    pim.sldi r2, 0
    pim.repeat 40 [r2 += 32] {
      // expected-error @+1 {{accesses local bytes [0, 1280) through r2, outside the core's 1024 bytes}}
      pim.vrelu r2, r2 len 8 : f32
    }
  }
}

// -----

pim.chip @m cores 2 crossbars 2 of [8, 8] memory 1024 {
  pim.core 0 {
    pim.sldi r2, 0
    // expected-error @+1 {{ends the program of core 0: a program must end with a matrix, vector or transfer instruction}}
    pim.sldi r3, 4
  }
}

// -----

pim.chip @m cores 2 crossbars 2 of [8, 8] memory 1024 {
  pim.core 0 {
    pim.sldi r2, 0
    // expected-error @+1 {{(tag 3) has no matching pim.recv on core 1}}
    pim.send r2 to 1 size 16 tag 3
  }
}

// -----

pim.chip @m cores 2 crossbars 2 of [8, 8] memory 1024 {
  pim.core 0 {
    pim.sldi r2, 0
    // expected-error @+1 {{(tag 3, 16 bytes) meets pim.recv (tag 3, 32 bytes) on core 1}}
    pim.send r2 to 1 size 16 tag 3
  }
  pim.core 1 {
    pim.sldi r2, 0
    pim.recv r2 from 0 size 32 tag 3
  }
}

// -----

pim.chip @m cores 2 crossbars 2 of [8, 8] memory 1024 {
  pim.core 0 {
    pim.sldi r2, 0
    // expected-error @+1 {{(tag 3, 16 bytes) meets pim.recv (tag 4, 16 bytes) on core 1}}
    pim.send r2 to 1 size 16 tag 3
    pim.send r2 to 1 size 16 tag 4
  }
  pim.core 1 {
    pim.sldi r2, 0
    // Out of order: the channel pairs its first send with this receive.
    pim.recv r2 from 0 size 16 tag 4
    pim.recv r2 from 0 size 16 tag 3
  }
}

// -----

pim.chip @m cores 2 crossbars 2 of [8, 8] memory 1024 {
  pim.core 1 {
    pim.sldi r2, 0
    // expected-error @+1 {{(tag 9) has no matching pim.send on core 0}}
    pim.recv r2 from 0 size 16 tag 9
  }
}

// -----

pim.chip @m cores 2 crossbars 2 of [8, 8] memory 1024 {
  // expected-error @+1 {{kind must be 'input' or 'output'}}
  pim.io @x "weights" name "x" at 0 : tensor<4xf32> layout #layout.layout<(4):(1)>
}

// -----

pim.chip @m cores 2 crossbars 2 of [8, 8] memory 1024 {
  // expected-error @+1 {{layout (3):(1) has 3 elements but the tensor has 4}}
  pim.io @x "input" name "x" at 0 : tensor<4xf32> layout #layout.layout<(3):(1)>
}

// -----

pim.chip @m cores 2 crossbars 2 of [8, 8] memory 1024 {
  // expected-error @+1 {{has a vocabulary but is not an int32 input (token ids)}}
  pim.io @x "input" name "x" at 0 : tensor<4xf32> layout #layout.layout<(4):(1)> {vocabulary = 8 : i64}
}

// -----

pim.chip @m cores 2 crossbars 2 of [8, 8] memory 1024 {
  // expected-error @+1 {{vocabulary 0 is outside 1..2^24 (ids pass through float32)}}
  pim.io @x "input" name "x" at 0 : tensor<4xi32> layout #layout.layout<(4):(1)> {vocabulary = 0 : i64}
}

// -----

pim.chip @m cores 2 crossbars 2 of [8, 8] memory 1024 {
  // expected-error @+1 {{needs a non-negative global address}}
  pim.data @c at -4 dense<1.0> : tensor<2xf32>
}

// -----

pim.chip @m cores 2 crossbars 2 of [8, 8] memory 1024 {
  pim.core 0 {
    // expected-error @+1 {{'pim.vrelu' op attribute 'type' failed to satisfy constraint}}
    pim.vrelu r2, r2 len 1 : f64
  }
}

// -----

// expected-error @+1 {{needs at least one core}}
pim.chip @m cores 0 crossbars 8 of [128, 128] memory 65536 {}

// -----

// expected-error @+1 {{needs crossbars per core and local memory (bytes) that are positive}}
pim.chip @m cores 4 crossbars 0 of [128, 128] memory 65536 {}

// -----

pim.chip @m cores 2 crossbars 2 of [8, 8] memory 65536 {
  // expected-error @+1 {{needs a static shape}}
  pim.io @x "input" name "x" at 0 : tensor<?xf32> layout #layout.layout<(4):(1)>
}

// -----

pim.chip @m cores 2 crossbars 2 of [8, 8] memory 65536 {
  pim.weight @w dense<1.0> : tensor<4x4xf32>
  pim.core 0 {
    // expected-error @+1 {{needs a non-negative id and at least one crossbar}}
    pim.group -1 crossbars 1 weight @w matrix #layout.layout<(4,4):(1,4)> rows [0, 4] cols [0, 4]
  }
}

// -----

pim.chip @m cores 2 crossbars 2 of [8, 8] memory 65536 {
  pim.core 0 {
    // expected-error @+1 {{has an empty body}}
    pim.repeat 4 [] {
    }
  }
}

// -----

pim.chip @m cores 2 crossbars 2 of [8, 8] memory 65536 {
  pim.core 0 {
    // expected-error @+1 {{needs one stride per register}}
    "pim.repeat"() <{count = 2 : i64, regs = array<i32: 2, 3>, strides = array<i32: 4>}> ({
      pim.nop
    }) : () -> ()
  }
}

// -----

pim.chip @m cores 2 crossbars 2 of [8, 8] memory 65536 {
  pim.core 0 {
    // expected-error @+1 {{strides register r40, outside r0..r31}}
    "pim.repeat"() <{count = 2 : i64, regs = array<i32: 40>, strides = array<i32: 4>}> ({
      pim.nop
    }) : () -> ()
  }
}

// -----

pim.chip @m cores 2 crossbars 2 of [8, 8] memory 65536 {
  pim.core 0 {
    pim.sldi r2, 0
    // The length is a valid 32-bit count, the 4-byte elements are not.
    // expected-error @+1 {{accesses 4000000000 bytes, outside 0..2^31-1}}
    pim.vrelu r2, r2 len 1000000000 : f32
  }
}

// -----

pim.chip @m cores 1 crossbars 8 of [128, 128] memory 65536 {
  pim.core 0 {
    // expected-error @+1 {{converts integers only (f32 has no conversion instruction)}}
    pim.vmv r2, r3 len 8 from i32 : f32
  }
}
