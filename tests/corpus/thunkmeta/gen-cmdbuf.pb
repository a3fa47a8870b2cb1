

kSequential


fusion.0kKernel
&

command_buffer_1kCommandBuffer

kSequential
 

loop_add_fusion.1kKernel



gemm.2kGemm
$

input_reduce_fusion.3kKernel


fusion.7kKernel



copy.4	kMemset32BitValue
&

command_buffer.2
kCommandBuffer

kSequential
-

all-reduce-start.5kNcclAllReduceStart


fusion.6kKernel