# out[c] = sum of the CTA's block * items elements of in
        S2R  R0, SR_TID_X            # t
        S2R  R1, SR_CTAID_X          # c
        S2R  R2, SR_NTID_X           # threads per CTA
        LDP  R3, items
        LDP  R4, n
        LDP  R5, in
        IMUL R6, R2, R3              # chunk = block * items
        IMUL R7, R1, R6
        IADD R7, R7, R0              # this thread's first element
        MOV  R8, 0                   # partial sum
        MOV  R9, 0                   # j
loop:   ISETP.GE P0, R9, R3
@P0     BRA  part
        ISETP.LT P1, R7, R4          # inside in?
        MOV  R10, 0
        SHL  R11, R7, 2
        IADD R11, R5, R11
@P1     LD   R10, [R11]
        IADD R8, R8, R10
        IADD R7, R7, R2              # coalesced: the next element is block threads away
        IADD R9, R9, 1
        BRA  loop
part:   LDP  R12, scratch
        IMAD R13, R1, R2, R0         # slot c * block + t
        SHL  R13, R13, 2
        IADD R13, R12, R13
        ST   [R13], R8
        BAR
        ISETP.GE P2, R0, 32
@P2     BRA  wait2                   # only warp 0 adds the columns
        MOV  R14, 0
        MOV  R15, R13
        MOV  R16, 0                  # w
        SHR  R17, R2, 5              # warps per CTA
col:    LD   R18, [R15]
        IADD R14, R14, R18
        IADD R15, R15, 128           # same lane of the next warp
        IADD R16, R16, 1
        ISETP.LT P3, R16, R17
@P3     BRA  col
        ST   [R13], R14
wait2:  BAR
        ISETP.NE P4, R0, 0
@P4     EXIT
        MOV  R19, 0                  # thread 0 adds the 32 column sums
        MOV  R20, R13
        MOV  R21, 0
fin:    LD   R22, [R20]
        IADD R19, R19, R22
        IADD R20, R20, 4
        IADD R21, R21, 1
        ISETP.LT P5, R21, 32
@P5     BRA  fin
        LDP  R23, out
        SHL  R24, R1, 2
        IADD R23, R23, R24
        ST   [R23], R19
        EXIT
