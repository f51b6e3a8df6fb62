/**
 * The two-level industry tree of the `industry` filter. The specification gives only the form of
 * the top-level codes (`l1:<letter>`); the tree follows the ANZSIC divisions and subdivisions, a real
 * classification used in the provider's home markets, with second-level codes `l2:<letter><number>`.
 */
export interface IndustryDivision {
  code: string;
  label: string;
  subdivisions: { code: string; label: string }[];
}

const TREE: [letter: string, label: string, subdivisions: [number, string][]][] = [
  [
    'A',
    'Agriculture, Forestry and Fishing',
    [
      [1, 'Agriculture'],
      [2, 'Aquaculture'],
      [3, 'Forestry and Logging'],
      [4, 'Fishing, Hunting and Trapping'],
      [5, 'Agriculture, Forestry and Fishing Support Services'],
    ],
  ],
  [
    'B',
    'Mining',
    [
      [6, 'Coal Mining'],
      [7, 'Oil and Gas Extraction'],
      [8, 'Metal Ore Mining'],
      [9, 'Non-Metallic Mineral Mining and Quarrying'],
      [10, 'Exploration and Other Mining Support Services'],
    ],
  ],
  [
    'C',
    'Manufacturing',
    [
      [11, 'Food Product Manufacturing'],
      [12, 'Beverage and Tobacco Product Manufacturing'],
      [13, 'Textile, Leather, Clothing and Footwear Manufacturing'],
      [14, 'Wood Product Manufacturing'],
      [15, 'Pulp, Paper and Converted Paper Product Manufacturing'],
      [16, 'Printing'],
      [17, 'Petroleum and Coal Product Manufacturing'],
      [18, 'Basic Chemical and Chemical Product Manufacturing'],
      [19, 'Polymer Product and Rubber Product Manufacturing'],
      [20, 'Non-Metallic Mineral Product Manufacturing'],
      [21, 'Primary Metal and Metal Product Manufacturing'],
      [22, 'Fabricated Metal Product Manufacturing'],
      [23, 'Transport Equipment Manufacturing'],
      [24, 'Machinery and Equipment Manufacturing'],
      [25, 'Furniture and Other Manufacturing'],
    ],
  ],
  [
    'D',
    'Electricity, Gas, Water and Waste Services',
    [
      [26, 'Electricity Supply'],
      [27, 'Gas Supply'],
      [28, 'Water Supply, Sewerage and Drainage Services'],
      [29, 'Waste Collection, Treatment and Disposal Services'],
    ],
  ],
  [
    'E',
    'Construction',
    [
      [30, 'Building Construction'],
      [31, 'Heavy and Civil Engineering Construction'],
      [32, 'Construction Services'],
    ],
  ],
  [
    'F',
    'Wholesale Trade',
    [
      [33, 'Basic Material Wholesaling'],
      [34, 'Machinery and Equipment Wholesaling'],
      [35, 'Motor Vehicle and Motor Vehicle Parts Wholesaling'],
      [36, 'Grocery, Liquor and Tobacco Product Wholesaling'],
      [37, 'Other Goods Wholesaling'],
      [38, 'Commission-Based Wholesaling'],
    ],
  ],
  [
    'G',
    'Retail Trade',
    [
      [39, 'Motor Vehicle and Motor Vehicle Parts Retailing'],
      [40, 'Fuel Retailing'],
      [41, 'Food Retailing'],
      [42, 'Other Store-Based Retailing'],
      [43, 'Non-Store Retailing'],
    ],
  ],
  [
    'H',
    'Accommodation and Food Services',
    [
      [44, 'Accommodation'],
      [45, 'Food and Beverage Services'],
    ],
  ],
  [
    'I',
    'Transport, Postal and Warehousing',
    [
      [46, 'Road Transport'],
      [47, 'Rail Transport'],
      [48, 'Water Transport'],
      [49, 'Air and Space Transport'],
      [50, 'Other Transport'],
      [51, 'Postal and Courier Pick-up and Delivery Services'],
      [52, 'Transport Support Services'],
      [53, 'Warehousing and Storage Services'],
    ],
  ],
  [
    'J',
    'Information Media and Telecommunications',
    [
      [54, 'Publishing'],
      [55, 'Motion Picture and Sound Recording Activities'],
      [56, 'Broadcasting'],
      [57, 'Internet Publishing and Broadcasting'],
      [58, 'Telecommunications Services'],
      [59, 'Internet Service Providers and Data Processing Services'],
      [60, 'Library and Other Information Services'],
    ],
  ],
  [
    'K',
    'Financial and Insurance Services',
    [
      [62, 'Finance'],
      [63, 'Insurance and Superannuation Funds'],
      [64, 'Auxiliary Finance and Insurance Services'],
    ],
  ],
  [
    'L',
    'Rental, Hiring and Real Estate Services',
    [
      [66, 'Rental and Hiring Services'],
      [67, 'Property Operators and Real Estate Services'],
    ],
  ],
  [
    'M',
    'Professional, Scientific and Technical Services',
    [
      [69, 'Professional, Scientific and Technical Services'],
      [70, 'Computer System Design and Related Services'],
    ],
  ],
  [
    'N',
    'Administrative and Support Services',
    [
      [72, 'Administrative Services'],
      [73, 'Building Cleaning, Pest Control and Other Support Services'],
    ],
  ],
  [
    'O',
    'Public Administration and Safety',
    [
      [75, 'Public Administration'],
      [76, 'Defence'],
      [77, 'Public Order, Safety and Regulatory Services'],
    ],
  ],
  [
    'P',
    'Education and Training',
    [
      [80, 'Preschool and School Education'],
      [81, 'Tertiary Education'],
      [82, 'Adult, Community and Other Education'],
    ],
  ],
  [
    'Q',
    'Health Care and Social Assistance',
    [
      [84, 'Hospitals'],
      [85, 'Medical and Other Health Care Services'],
      [86, 'Residential Care Services'],
      [87, 'Social Assistance Services'],
    ],
  ],
  [
    'R',
    'Arts and Recreation Services',
    [
      [89, 'Heritage Activities'],
      [90, 'Creative and Performing Arts Activities'],
      [91, 'Sports and Recreation Activities'],
      [92, 'Gambling Activities'],
    ],
  ],
  [
    'S',
    'Other Services',
    [
      [94, 'Repair and Maintenance'],
      [95, 'Personal and Other Services'],
    ],
  ],
];

export const INDUSTRY_DIVISIONS: readonly IndustryDivision[] = TREE.map(([letter, label, subs]) => ({
  code: `l1:${letter}`,
  label,
  subdivisions: subs.map(([n, sub]) => ({ code: `l2:${letter}${String(n).padStart(2, '0')}`, label: sub })),
}));

/** Every industry code, top-level and second-level, to the top-level code it sits under. */
export const INDUSTRY_PARENT: ReadonlyMap<string, string> = new Map(
  INDUSTRY_DIVISIONS.flatMap((d) => [
    [d.code, d.code] as const,
    ...d.subdivisions.map((s) => [s.code, d.code] as const),
  ]),
);
